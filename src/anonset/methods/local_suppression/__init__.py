"""Local suppression: single quasi-identifier values blanked until every key is shared by k records."""
