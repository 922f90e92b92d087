"""System checks of which site: the base URL, ``SITEMAPKIT_SITES`` and how each site
is served, the ``django.contrib.sites`` rows, and the sites a source lists on."""
