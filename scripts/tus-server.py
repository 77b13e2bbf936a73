#!/usr/bin/env python3
"""A tus 1.0 server for the upload tests (scripts/upload-servers.sh): tuspyserver's FastAPI
router under /files, served by uvicorn on 127.0.0.1 only.

usage: tus-server.py PORT DIR
"""
import sys

import uvicorn
from fastapi import FastAPI
from tuspyserver import create_tus_router

port, files_dir = int(sys.argv[1]), sys.argv[2]
app = FastAPI()
app.include_router(create_tus_router(prefix="files", files_dir=files_dir))
uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
