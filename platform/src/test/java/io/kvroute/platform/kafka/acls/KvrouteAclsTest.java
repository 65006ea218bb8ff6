package io.kvroute.platform.kafka.acls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kvroute.schemas.topics.TenantTopics;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

class KvrouteAclsTest {
    private final KvrouteAcls acls = new KvrouteAcls("kvroute", "kvroute-router");

    @Test
    void shouldLetATenantWriteRequestsAndCancelsAndReadResponsesOnly() {
        List<AclBinding> tenant = acls.tenant("User:acme", "acme");

        assertThat(grants(tenant, AclOperation.WRITE)).containsExactlyInAnyOrder("TOPIC LITERAL kvroute.requests",
                "TOPIC LITERAL kvroute.cancellations");
        assertThat(grants(tenant, AclOperation.READ)).containsExactly("TOPIC LITERAL kvroute.responses");
        assertThat(tenant).allSatisfy(b -> {
            assertThat(b.entry().principal()).isEqualTo("User:acme");
            assertThat(b.entry().permissionType()).isEqualTo(AclPermissionType.ALLOW);
            assertThat(b.pattern().patternType()).as("no wildcard or prefix for a tenant").isEqualTo(PatternType.LITERAL);
        });
    }

    @Test
    void shouldLetTheRouterOwnItsStreamsApplicationAndWriteEveryRegionsDispatchTopic() {
        List<AclBinding> router = acls.router("User:router");

        assertThat(grants(router, AclOperation.WRITE)).contains("TOPIC PREFIXED kvroute.dispatch.", "TOPIC LITERAL kvroute.decisions",
                "TOPIC LITERAL kvroute.responses", "TOPIC LITERAL kvroute.cancellations", "TOPIC LITERAL kvroute.dlq",
                "TRANSACTIONAL_ID PREFIXED kvroute-router-");
        assertThat(grants(router, AclOperation.READ)).contains("TOPIC LITERAL kvroute.requests", "TOPIC LITERAL kvroute.worker-telemetry",
                "GROUP LITERAL kvroute-router").doesNotContain("TOPIC PREFIXED kvroute.dispatch.");
        assertThat(grants(router, AclOperation.ALL)).containsExactly("TOPIC PREFIXED kvroute-router-");
    }

    @Test
    void shouldKeepAWorkerToItsRegionAndItsOwnTransactionalId() {
        List<AclBinding> worker = acls.worker("User:gpu-7", "eu-west", "eu-west-7");

        assertThat(grants(worker, AclOperation.READ)).containsExactlyInAnyOrder("TOPIC LITERAL kvroute.dispatch.eu-west",
                "TOPIC LITERAL kvroute.cancellations", "GROUP LITERAL kvroute.worker.eu-west");
        assertThat(grants(worker, AclOperation.WRITE)).containsExactlyInAnyOrder("TOPIC LITERAL kvroute.responses",
                "TOPIC LITERAL kvroute.worker-telemetry", "TOPIC LITERAL kvroute.kv-events", "TOPIC LITERAL kvroute.dlq",
                "TRANSACTIONAL_ID LITERAL kvroute-worker-eu-west-7");
        assertThat(grants(acls.worker("User:gpus", "eu-west", null), AclOperation.WRITE))
                .as("the region's worker ids only").contains("TRANSACTIONAL_ID PREFIXED kvroute-worker-eu-west-");
    }

    @Test
    void shouldGiveNoRoleButTheOperatorAnythingOnTheDecisionsOrTelemetryItDoesNotUse() {
        assertThat(grants(acls.tenant("User:t", "t"), AclOperation.READ)).noneMatch(g -> g.contains("decisions") || g.contains("telemetry"));
        assertThat(grants(acls.worker("User:w", "us-east", null), AclOperation.READ)).noneMatch(g -> g.contains("requests"));
        assertThat(acls.operator("User:ops")).anySatisfy(b -> assertThat(b.pattern().resourceType()).isEqualTo(ResourceType.CLUSTER));
    }

    @Test
    void shouldFollowTheTopicPrefixAndApplicationId() {
        KvrouteAcls other = new KvrouteAcls("team-b", "team-b-router");
        assertThat(grants(other.tenant("User:t", "t"), AclOperation.WRITE)).contains("TOPIC LITERAL team-b.requests");
        assertThat(grants(other.router("User:r"), AclOperation.ALL)).containsExactly("TOPIC PREFIXED team-b-router-");
    }

    @Test
    void shouldGiveATenantWithTopicsOfItsOwnThoseTopicsOnlyAndTheRouterAndWorkersEveryTenantsByPrefix() {
        KvrouteAcls perTenant = new KvrouteAcls("kvroute", "kvroute-router", TenantTopics.PER_TENANT);

        List<AclBinding> acme = perTenant.tenant("User:acme", "acme");
        assertThat(grants(acme, AclOperation.WRITE)).containsExactlyInAnyOrder("TOPIC LITERAL kvroute.requests.acme",
                "TOPIC LITERAL kvroute.cancellations.acme");
        assertThat(grants(acme, AclOperation.READ)).containsExactly("TOPIC LITERAL kvroute.responses.acme");
        assertThat(grants(perTenant.router("User:router"), AclOperation.READ)).contains("TOPIC PREFIXED kvroute.requests.",
                "TOPIC PREFIXED kvroute.cancellations.", "TOPIC PREFIXED kvroute.responses.");
        assertThat(grants(perTenant.router("User:router"), AclOperation.WRITE)).contains("TOPIC PREFIXED kvroute.responses.",
                "TOPIC LITERAL kvroute.cancellations").doesNotContain("TOPIC PREFIXED kvroute.cancellations.");
        assertThat(grants(perTenant.worker("User:w", "us-east", null), AclOperation.WRITE)).contains("TOPIC PREFIXED kvroute.responses.");
        assertThat(grants(acls.router("User:router"), AclOperation.READ)).as("shared topics: no tenant prefixes")
                .doesNotContain("TOPIC PREFIXED kvroute.requests.");
    }

    @Test
    void shouldRefuseAPrincipalWithoutAType() {
        assertThatThrownBy(() -> acls.tenant("acme", "acme")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'acme'");
    }

    private static Set<String> grants(List<AclBinding> bindings, AclOperation operation) {
        return bindings.stream().filter(b -> b.entry().operation() == operation)
                .map(b -> b.pattern().resourceType() + " " + b.pattern().patternType() + " " + b.pattern().name())
                .collect(Collectors.toSet());
    }
}
