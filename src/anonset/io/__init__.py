"""Reading and writing tables, configuration files and hierarchy files."""
