"""The site build: vendoring, lesson rendering, bundling and serving, driven by build.py."""
