"""eddy_post: post-processing of eddy output directories (see scripts/eddy_post.py)."""
