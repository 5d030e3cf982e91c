"""The reference engine: class statistics computed with numpy and compiled kernels over the encoded records."""
