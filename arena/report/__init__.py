"""Reports of finished or running tournaments: building one from the store, rendering
it as text, Markdown, HTML, JSON or CSV, and its plots."""
