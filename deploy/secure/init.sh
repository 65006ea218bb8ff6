#!/usr/bin/env bash
# Makes, once, what the secured compose stack needs in the shared volume /secure: a TLS key pair for
# the broker (host name "kafka"), a trust store holding its certificate, a random password for every
# principal, the broker's configuration and each process's client settings. Passwords go into files
# readable by their process only (keytool reads them from the environment), never on a command line.
set -euo pipefail
umask 077
SECURE_DIR=${SECURE_DIR:-/secure} # the volume; another directory to try the script outside Docker
cd "$SECURE_DIR"
if [[ -f .ready ]]; then
  echo "secure-init: $SECURE_DIR already provisioned"
  exit 0
fi

KAFKA_UID=1000 # the apache/kafka and cp-schema-registry images run as uid 1000 (appuser)
USERS=(admin registry router worker-us-east worker-eu-west worker-ap-south acme globex)
secret() { head -c 24 /dev/urandom | base64 | tr -d '/+=' ; }

for user in "${USERS[@]}"; do
  secret > "password.$user"
done
secret > store.password

export STOREPASS; STOREPASS=$(cat store.password)
keytool -genkeypair -alias kafka -keyalg EC -groupname secp256r1 -validity 825 \
  -dname "CN=kafka, O=kvroute compose" -ext "SAN=dns:kafka,dns:localhost,ip:127.0.0.1" \
  -keystore broker.p12 -storetype PKCS12 -storepass:env STOREPASS
keytool -exportcert -alias kafka -keystore broker.p12 -storetype PKCS12 -storepass:env STOREPASS -file broker.crt
keytool -importcert -noprompt -alias kafka -file broker.crt -keystore truststore.p12 -storetype PKCS12 \
  -storepass:env STOREPASS

scram_jaas() { # user
  printf 'org.apache.kafka.common.security.scram.ScramLoginModule required username="%s" password="%s";' \
    "$1" "$(cat "password.$1")"
}

admin_password=$(cat password.admin)
cat > server.properties <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:9093
controller.listener.names=CONTROLLER
# clients and the broker itself: SCRAM over TLS; the controller listener is loopback only
listeners=SASL_SSL://0.0.0.0:9094,CONTROLLER://127.0.0.1:9093
advertised.listeners=SASL_SSL://kafka:9094
listener.security.protocol.map=SASL_SSL:SASL_SSL,CONTROLLER:SASL_PLAINTEXT
inter.broker.listener.name=SASL_SSL
sasl.enabled.mechanisms=SCRAM-SHA-512
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config=$(scram_jaas admin)
# SCRAM credentials live in the metadata the controller serves, so the controller listener uses PLAIN
sasl.mechanism.controller.protocol=PLAIN
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="$admin_password" user_admin="$admin_password";
ssl.keystore.location=/secure/broker.p12
ssl.keystore.type=PKCS12
ssl.keystore.password=$STOREPASS
ssl.truststore.location=/secure/truststore.p12
ssl.truststore.type=PKCS12
ssl.truststore.password=$STOREPASS
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
allow.everyone.if.no.acl.found=false
super.users=User:admin
log.dirs=/tmp/kafka-data
auto.create.topics.enable=false
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
group.initial.rebalance.delay.ms=0
PROPS

# kvroute's processes read these with --config (every Kafka client setting behind the kafka. prefix)
for user in admin router worker-us-east worker-eu-west worker-ap-south acme globex; do
  {
    echo "bootstrap.servers=kafka:9094"
    echo "schema.registry.url=http://schema-registry:8081"
    echo "kvroute.tenant.topics=per-tenant"
    echo "kafka.security.protocol=SASL_SSL"
    echo "kafka.sasl.mechanism=SCRAM-SHA-512"
    echo "kafka.sasl.jaas.config=$(scram_jaas "$user")"
    echo "kafka.ssl.truststore.location=/secure/truststore.p12"
    echo "kafka.ssl.truststore.type=PKCS12"
    echo "kafka.ssl.truststore.password=$STOREPASS"
  } > "$user.properties"
done
for user in acme globex; do
  echo "ingress.tenant=$user" >> "$user.properties"
done
# the admin commands (kvroute topics/acls --command-config, kafka-configs.sh) take plain Kafka keys
sed -n 's/^kafka\.//p' admin.properties > admin-client.properties
echo "bootstrap.servers=kafka:9094" >> admin-client.properties

# the schema registry's store connection (cp-schema-registry reads SCHEMA_REGISTRY_KAFKASTORE_*)
cat > registry.env <<ENV
export SCHEMA_REGISTRY_KAFKASTORE_SASL_JAAS_CONFIG='$(scram_jaas registry)'
export SCHEMA_REGISTRY_KAFKASTORE_SSL_TRUSTSTORE_PASSWORD='$STOREPASS'
ENV

[[ $(id -u) -ne 0 ]] || chown "$KAFKA_UID:$KAFKA_UID" broker.p12 truststore.p12 server.properties password.* registry.env
chmod 0644 truststore.p12 broker.crt
touch .ready
echo "secure-init: made the broker's key pair, the trust store and the settings of ${#USERS[@]} principals"
