"""Fills a scenario template: every @KEY@ in it is replaced by the environment variable KEY.
A key without a variable is an error: a misspelt key stops the run instead of reaching bifrost-sim.
Usage: KEY=value ... fill_template.py TEMPLATE OUTPUT"""
import os
import re
import sys

text = open(sys.argv[1]).read()
missing = sorted({key for key in re.findall(r"@([A-Z_]+)@", text) if key not in os.environ})
if missing:
    sys.exit(f"{sys.argv[1]}: no value for {', '.join(missing)}")
text = re.sub(r"@([A-Z_]+)@", lambda m: os.environ[m.group(1)], text)
open(sys.argv[2], "w").write(text)
