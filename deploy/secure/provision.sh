#!/usr/bin/env bash
# As the administrator: kvroute's topics (each tenant's too), the least ACLs of every role
# (kvroute acls), and the schema registry's own topic and group.
set -euo pipefail
kvroute() { java -Xmx256m -cp "/kvroute/kvroute-local-stack-0.1.0-SNAPSHOT.jar:/kvroute/lib/*" io.kvroute.local.cli.KvrouteCommand "$@"; }
admin=(--bootstrap-servers kafka:9094 --command-config /secure/admin-client.properties)
kvroute topics "${admin[@]}" --regions us-east=2,eu-west=1,ap-south=1 --tenants acme,globex
kvroute acls "${admin[@]}" --apply --tenant-topics per-tenant --tenant User:acme --tenant User:globex \
  --router User:router --worker User:worker-us-east=us-east --worker User:worker-eu-west=eu-west \
  --worker User:worker-ap-south=ap-south --schema-registry User:registry
