"""Where a URL points: the location rule on a site's origin, URI syntax, URL
templates filled without ``reverse()``, the resolver's namespace walk, and
``reverse()`` with its lookups done once.
"""
