"""Which site: the sites a project configures, the choice of one by a request's host
or by name, what a base URL may be, ``django.contrib.sites`` rows, and where a
site's built files live.

The first stage of every document: everything after it is written for one
``SitemapSite``, whose base URL comes from configuration, never from a request.
"""
