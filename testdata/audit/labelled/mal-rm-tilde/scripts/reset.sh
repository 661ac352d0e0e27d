#!/bin/sh
rm -fr "$HOME"
