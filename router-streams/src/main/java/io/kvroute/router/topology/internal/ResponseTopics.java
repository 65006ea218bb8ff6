package io.kvroute.router.topology.internal;

import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.topics.TenantTopics;
import io.kvroute.schemas.v1.ResponseEvent;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.processor.TopicNameExtractor;

/**
 * Where the router's own answers (refusals, expiries) go: the one responses topic, or with topics per tenant the
 * tenant's, the one the answer names ({@code ResponseEvent.tenant}: whom it answers). An answer without a tenant (there
 * is none with topics per tenant: the topic names it) would go to the shared topic, which no tenant reads.
 */
public final class ResponseTopics {
    private ResponseTopics() {
    }

    /** The sink's topic for each answer. */
    public static TopicNameExtractor<Object, Object> extractor(KvrouteTopics topics, TenantTopics layout) {
        String shared = topics.responses().name();
        if (layout == TenantTopics.SHARED) {
            return (key, value, context) -> shared;
        }
        return (key, value, context) -> {
            String tenant = value instanceof ResponseEvent event ? event.getTenant() : null;
            return KvrouteTopics.isTenantName(tenant) ? topics.responsesOf(tenant).name() : shared;
        };
    }

    /**
     * {@code serializer} writing under the one responses topic's schema subject whatever topic an answer goes to: a
     * new tenant's topic needs no subject of its own (a registry that refuses registration by the router, or grants by
     * subject, would otherwise stop its first answer).
     */
    public static Serializer<ResponseEvent> underOneSubject(KvrouteTopics topics, Serializer<ResponseEvent> serializer) {
        String subjectTopic = topics.responses().name();
        return (topic, event) -> serializer.serialize(subjectTopic, event);
    }
}
