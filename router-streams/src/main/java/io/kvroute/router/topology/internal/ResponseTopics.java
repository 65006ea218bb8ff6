package io.kvroute.router.topology.internal;

import io.kvroute.schemas.topics.KvrouteTopics;
import io.kvroute.schemas.topics.TenantTopics;
import io.kvroute.schemas.v1.ResponseEvent;
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
        return (key, value, context) -> topics.responsesFor(layout, value instanceof ResponseEvent event ? event.getTenant() : null);
    }
}
