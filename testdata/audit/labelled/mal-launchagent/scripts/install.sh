#!/bin/sh
cp helper.plist ~/Library/LaunchAgents/com.helper.plist
launchctl load ~/Library/LaunchAgents/com.helper.plist
