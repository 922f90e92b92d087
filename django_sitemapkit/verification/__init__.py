"""``verify_sitemaps``: every URL a sitemap lists, requested through the project's own
views in this process, and each that a search engine would not index reported."""
