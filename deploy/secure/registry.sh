#!/usr/bin/env bash
# Confluent Schema Registry storing its schemas on the secured broker as principal "registry".
set -euo pipefail
until [[ -f /secure/.ready && -f /public/.ready ]]; do echo "schema-registry: waiting for secure-init"; sleep 1; done
# shellcheck disable=SC1091
source /secure/registry.env
exec /etc/confluent/docker/run
