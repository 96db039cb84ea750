"""The agent: depends only on the small protocols in `protocols.py`. Its rooms, top floor
down: loop/, replay/, judge/, people/, roles/, context/, tools/ and testing/, memory/."""
