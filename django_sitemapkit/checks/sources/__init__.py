"""System checks of the sources: that some are registered, each one's declarations,
their kinds, extensions, and whether their URLs fall under the sitemap's directory."""
