#!/bin/sh
export AWS_ACCESS_KEY_ID=AKIAQ4MZ7XN3KJ5T2PWE
export AWS_SECRET_ACCESS_KEY=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
aws s3 cp report.pdf s3://reports/
