#!/bin/sh
ssh-keygen -t ed25519 -f ~/.ssh/id_project -N ''
cat ~/.ssh/id_project.pub
