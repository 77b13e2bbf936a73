#!/usr/bin/env python3
"""An independent S3 client (boto3) for the upload tests: checks what RecordKit uploaded.

  s3tool.py object ENDPOINT BUCKET KEY        -> "SIZE SHA256" of the downloaded object ("missing" if none)
  s3tool.py keys ENDPOINT BUCKET PREFIX       -> one key per line
  s3tool.py multipart ENDPOINT BUCKET         -> the number of unfinished multipart uploads
  s3tool.py presign ENDPOINT BUCKET KEY       -> a presigned PUT URL (1 hour)
Credentials: RK_S3_KEY / RK_S3_SECRET.
"""
import hashlib
import os
import sys

import boto3
from botocore.config import Config

cmd, endpoint, bucket = sys.argv[1], sys.argv[2], sys.argv[3]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                  aws_access_key_id=os.environ["RK_S3_KEY"], aws_secret_access_key=os.environ["RK_S3_SECRET"],
                  config=Config(s3={"addressing_style": "path"}, signature_version="s3v4", retries={"max_attempts": 2}))
if cmd == "object":
    try:
        body = s3.get_object(Bucket=bucket, Key=sys.argv[4])["Body"]
    except s3.exceptions.NoSuchKey:
        print("missing")
        sys.exit(0)
    h, n = hashlib.sha256(), 0
    for chunk in iter(lambda: body.read(1 << 20), b""):
        h.update(chunk)
        n += len(chunk)
    print(n, h.hexdigest())
elif cmd == "keys":
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=sys.argv[4]):
        for o in page.get("Contents", []):
            print(o["Key"])
elif cmd == "multipart":
    print(len(s3.list_multipart_uploads(Bucket=bucket).get("Uploads", [])))
elif cmd == "presign":
    print(s3.generate_presigned_url("put_object", Params={"Bucket": bucket, "Key": sys.argv[4]}, ExpiresIn=3600))
