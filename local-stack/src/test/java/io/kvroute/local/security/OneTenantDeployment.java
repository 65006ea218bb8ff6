package io.kvroute.local.security;

import io.kvroute.local.stack.LocalKafkaBroker;
import io.kvroute.platform.kafka.TopicCreator;
import io.kvroute.platform.kafka.acls.KvrouteAcls;
import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.topics.TenantTopics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBinding;

/**
 * What the authentication tests (certificates, OAuth tokens) provision alike on a secured broker: topics per tenant for
 * one region of one GPU and tenant {@code acme}, and the least ACLs of principals {@code router}, {@code gpu-east}
 * (pinned to worker {@code <region>-0}) and {@code acme}, created as the administrator.
 */
final class OneTenantDeployment {
    private OneTenantDeployment() {
    }

    static void provision(LocalKafkaBroker broker, KvrouteTopics topics, String region) throws Exception {
        KvrouteAcls acls = new KvrouteAcls(topics.prefix(), "kvroute-router", TenantTopics.PER_TENANT);
        List<AclBinding> grants = new ArrayList<>(acls.router("User:router"));
        grants.addAll(acls.worker("User:gpu-east", region, region + "-0"));
        grants.addAll(acls.tenant("User:acme", "acme"));
        try (Admin admin = Admin.create(broker.adminClientSettings())) {
            new TopicCreator(admin, (short) 1).ensure(topics.all(Map.of(region, 1)));
            new TopicCreator(admin, (short) 1).ensure(topics.ofTenant("acme"));
            admin.createAcls(grants).all().get(30, TimeUnit.SECONDS);
        }
    }
}
