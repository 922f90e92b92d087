"""The bytes of a document: the XML encoder and its limits, escaping, extension
elements, the HTML sitemap's markup, and deterministic gzip.
"""
