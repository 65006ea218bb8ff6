package io.kvroute.ingress.client;

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
 */
public final class InferenceRequestFactory {
    private final PromptHasher hasher;
    private final String defaultTenant;
    private final Clock clock;
    private final Supplier<String> ids;

    public InferenceRequestFactory(PromptHasher hasher, String defaultTenant, Clock clock, Supplier<String> ids) {
        this.hasher = hasher;
        this.defaultTenant = defaultTenant;
        this.clock = clock;
        this.ids = ids;
    }

    public InferenceRequestFactory(PromptHasher hasher, String defaultTenant, Clock clock) {
        this(hasher, defaultTenant, clock, () -> UUID.randomUUID().toString());
    }

    public InferenceRequest create(SubmitRequest request) {
        PromptFingerprint fingerprint = request.isChat()
                ? hasher.fingerprint(request.messages().orElseThrow())
                : hasher.fingerprint(request.prompt().orElseThrow());
        return InferenceRequest.newBuilder()
                .setRequestId(request.requestId().orElseGet(ids))
                .setCustomId(request.customId().orElse(null))
                .setTenant(request.tenant().orElse(defaultTenant))
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
                .build();
    }
}
