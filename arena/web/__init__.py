"""The arena as a web service: pages, the JSON API, accounts and the tournament worker.

``arena serve`` runs :func:`arena.web.app.create_app` under uvicorn; see docs/web.md.
This package imports nothing by itself, so the submission check's child process
(``python -m arena.web.checker``) starts without the web stack.
"""
