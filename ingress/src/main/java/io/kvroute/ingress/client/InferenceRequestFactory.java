package io.kvroute.ingress.client;

import io.kvroute.ingress.prompt.PrefixSalt;
import io.kvroute.ingress.prompt.PromptFingerprint;
import io.kvroute.ingress.prompt.PromptHasher;
import io.kvroute.schemas.v1.InferenceRequest;
import java.time.Clock;
import java.time.Instant;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Completes a {@link SubmitRequest} into the {@link InferenceRequest} that goes on the requests
 * topic: id, tenant, prefix block hashes, token estimate and submission time filled in.
 *
 * <p>The hashes are salted ({@link PrefixSalt}): with the configured salt when there is one, for
 * every tenant this factory submits for, else with the salt of the request's own tenant, so two
 * tenants never share a prefix unless they are given the same salt. The request carries the
 * salt's {@link PrefixSalt#cacheSalt() cache salt} for servers that isolate their cache by it.
 */
public final class InferenceRequestFactory {
    private final PromptHasher hasher;
    private final String defaultTenant;
    private final PrefixSalt configuredSalt;
    private final Clock clock;
    private final Supplier<String> ids;

    /**
     * @param configuredSalt the salt of every request, or null for each tenant's own (derived from its name)
     */
    public InferenceRequestFactory(PromptHasher hasher, String defaultTenant, PrefixSalt configuredSalt, Clock clock,
                                   Supplier<String> ids) {
        this.hasher = hasher;
        this.defaultTenant = defaultTenant;
        this.configuredSalt = configuredSalt;
        this.clock = clock;
        this.ids = ids;
    }

    public InferenceRequestFactory(PromptHasher hasher, String defaultTenant, PrefixSalt configuredSalt, Clock clock) {
        this(hasher, defaultTenant, configuredSalt, clock, () -> UUID.randomUUID().toString());
    }

    /** A factory whose requests are salted per tenant. */
    public InferenceRequestFactory(PromptHasher hasher, String defaultTenant, Clock clock) {
        this(hasher, defaultTenant, null, clock);
    }

    public InferenceRequest create(SubmitRequest request) {
        String tenant = request.tenant().orElse(defaultTenant);
        PrefixSalt salt = configuredSalt != null ? configuredSalt : PrefixSalt.ofTenant(tenant);
        PromptFingerprint fingerprint = request.isChat()
                ? hasher.fingerprint(request.messages().orElseThrow(), salt)
                : hasher.fingerprint(request.prompt().orElseThrow(), salt);
        return InferenceRequest.newBuilder()
                .setRequestId(request.requestId().orElseGet(ids))
                .setCustomId(request.customId().orElse(null))
                .setTenant(tenant)
                .setModel(request.model())
                .setPrompt(request.prompt().orElse(null))
                .setMessages(request.messages().orElse(null))
                .setMaxTokens(request.maxTokens())
                .setSampling(request.sampling().orElse(null))
                .setPriority(request.priority())
                .setDeadlineMs(request.deadline().map(Instant::toEpochMilli).orElse(null))
                .setAllowedRegions(request.allowedRegions())
                .setPrefixBlockHashes(fingerprint.hashList())
                .setPrefixBlockTokens(fingerprint.blockTokens())
                .setPromptTokenEstimate(fingerprint.promptTokenEstimate())
                .setSubmittedAtMs(clock.millis())
                .setCacheSalt(salt.cacheSalt())
                .build();
    }
}
