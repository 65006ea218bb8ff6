package io.kvroute.local.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.local.stack.LocalKafkaBroker;
import io.kvroute.local.stack.SecuredDeployment;
import io.kvroute.platform.process.ChildJvm;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SCRAM users given to a broker whose directory was formatted before (a restart on the same data): no format runs, so
 * {@link LocalKafkaBroker#withScramUsers} creates or updates them as the administrator once the broker is up, and the
 * password given is the one that holds.
 */
class ScramUsersRestartIntegrationTest {
    @TempDir
    Path dir;

    @Test
    void shouldUpsertTheUsersOfADirectoryFormattedBefore() throws Exception {
        String first = UUID.randomUUID().toString();
        String second = UUID.randomUUID().toString();
        LocalKafkaBroker.BrokerAdmin admin = new LocalKafkaBroker.BrokerAdmin("admin", UUID.randomUUID().toString());
        int brokerPort = ChildJvm.freePort();
        int controllerPort = ChildJvm.freePort();
        try (LocalKafkaBroker broker = new LocalKafkaBroker(dir, "256m", brokerPort, controllerPort).secured(admin)
                .withScramUsers(Map.of("alice", first)).start()) {
            assertThat(describeAs(broker, "alice", first)).isNotBlank();
        }
        try (LocalKafkaBroker again = new LocalKafkaBroker(dir, "256m", brokerPort, controllerPort).secured(admin)
                .withScramUsers(Map.of("alice", second, "bob", first)).start()) {
            assertThat(describeAs(again, "alice", second)).as("alice's new password").isNotBlank();
            assertThat(describeAs(again, "bob", first)).as("a user added on the restart").isNotBlank();
            assertThatThrownBy(() -> describeAs(again, "alice", first)).as("alice's old password")
                    .hasRootCauseInstanceOf(SaslAuthenticationException.class);
        }
    }

    private static String describeAs(LocalKafkaBroker broker, String user, String password) throws Exception {
        Map<String, Object> settings = new HashMap<>(broker.clientTlsSettings());
        settings.put("bootstrap.servers", broker.bootstrapServers());
        settings.put("sasl.mechanism", "SCRAM-SHA-512");
        settings.put("sasl.jaas.config", SecuredDeployment.scramJaas(user, password));
        try (Admin client = Admin.create(settings)) {
            return client.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
        }
    }
}
