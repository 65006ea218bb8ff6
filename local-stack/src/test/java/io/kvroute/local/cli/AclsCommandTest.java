package io.kvroute.local.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.acl.AclBinding;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class AclsCommandTest {

    private static Map<String, List<AclBinding>> plan(String... args) {
        AclsCommand command = new AclsCommand();
        new CommandLine(command).parseArgs(args);
        return command.plan();
    }

    @Test
    void shouldGrantEachNamedPrincipalItsRole() {
        Map<String, List<AclBinding>> plan = plan("--tenant-topics", "per-tenant", "--tenant", "User:acme", "--tenant", "User:svc-7=globex",
                "--router", "User:router", "--worker", "User:gpu=us-east/us-east-0", "--operator", "User:ops");

        assertThat(plan.keySet()).containsExactly("tenant User:acme as acme", "tenant User:svc-7 as globex", "router User:router",
                "worker User:gpu in us-east", "operator User:ops");
        assertThat(plan.get("tenant User:svc-7 as globex")).extracting(b -> b.pattern().name()).contains("kvroute.requests.globex");
        assertThat(plan.get("worker User:gpu in us-east")).extracting(b -> b.pattern().name()).contains("kvroute-worker-us-east-0");
        assertThat(AclsCommand.line(plan.get("router User:router").get(0))).startsWith("ALLOW").contains("User:router");
    }

    @Test
    void shouldGrantASchemaRegistryItsStoreTopicAndGroupOnly() {
        List<AclBinding> registry = plan("--schema-registry", "User:registry").get("schema registry User:registry");

        assertThat(registry).extracting(b -> b.pattern().resourceType() + " " + b.pattern().name() + " " + b.entry().operation())
                .containsExactlyInAnyOrder("TOPIC _schemas CREATE", "TOPIC _schemas DESCRIBE", "TOPIC _schemas DESCRIBE_CONFIGS",
                        "TOPIC _schemas READ", "TOPIC _schemas WRITE", "GROUP schema-registry READ", "GROUP schema-registry DESCRIBE");
        assertThat(plan("--schema-registry", "User:registry", "--schema-registry-topic", "_schemas_eu")
                .get("schema registry User:registry")).extracting(b -> b.pattern().name()).contains("_schemas_eu");
    }

    @Test
    void shouldRefuseAWorkerWithoutARegionAndATenantThatCannotNameTopics() {
        assertThatThrownBy(() -> plan("--worker", "User:gpu")).isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageContaining("PRINCIPAL=REGION");
        assertThatThrownBy(() -> plan("--tenant-topics", "per-tenant", "--tenant", "User:acme.corp"))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("acme.corp");
        assertThatThrownBy(() -> plan("--tenant-topics", "some", "--tenant", "User:acme"))
                .isInstanceOf(CommandLine.ParameterException.class).hasMessageContaining("--tenant-topics");
    }
}
