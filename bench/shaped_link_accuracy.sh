#!/usr/bin/env bash
# Accuracy against a known answer (root): on the emulated two-host network (tools/netns-cluster)
# with every link shaped by tbf to a known rate, msgperf's fitted bandwidth must match the TCP
# goodput (rate x (MTU-52)/(MTU+14), computed and printed) within 5%, for two rates and two MTUs.
# It runs the cluster tier's bandwidth test and prints the figures each case measured.
#     bench/shaped_link_accuracy.sh
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m pytest -q -s tests/cluster/test_bandwidth.py -p no:cacheprovider 2>&1 \
    | grep -E "^shaped link:|passed|failed|skipped|error"
