package io.kvroute.local.loadtest;

import io.kvroute.bench.trace.SyntheticPrompt;
import io.kvroute.bench.trace.TraceRequest;
import io.kvroute.ingress.client.InferenceRequestFactory;
import io.kvroute.ingress.client.SubmitRequest;
import io.kvroute.ingress.prompt.PromptHasher;
import io.kvroute.local.stack.KvrouteServices;
import io.kvroute.schemas.v1.InferenceRequest;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;

/**
 * The requests of a load test, made on demand from a trace: request {@code i} is trace request
 * {@code i mod size}, its prompt built by {@link SyntheticPrompt} from its block ids, so requests
 * sharing a prefix of blocks share a prefix of text as in the trace. Every pass over the trace
 * shifts the block ids past the trace's largest, so prefixes are shared within a pass as the trace
 * shares them, not with the pass before. Each trace block of {@code traceBlockTokens} tokens
 * becomes {@code blockTokens} tokens (the prompt scaled by the same factor): Mooncake's blocks are
 * 512 tokens and its prompts 15k tokens on average, 61 KB of text each, which at 50,000 requests
 * would measure the disk rather than the router. Requests are completed by the client library's
 * {@link InferenceRequestFactory}, as {@code KvrouteClient.prepare} does.
 */
public final class LoadtestWorkload {
    public static final String TENANT = "loadtest";

    private final List<TraceRequest> trace;
    private final int blockTokens;
    private final long blockIdStride;
    private final String idPrefix;
    private final InferenceRequestFactory factory;

    public LoadtestWorkload(List<TraceRequest> trace, int blockTokens, String idPrefix, Clock clock) {
        if (trace.isEmpty()) {
            throw new IllegalArgumentException("the trace has no requests");
        }
        if (blockTokens < 1) {
            throw new IllegalArgumentException("block tokens must be at least 1, was " + blockTokens);
        }
        this.trace = List.copyOf(trace);
        this.blockTokens = blockTokens;
        this.blockIdStride = trace.stream().flatMapToLong(r -> Arrays.stream(r.blockIds())).max().orElse(0) + 1;
        this.idPrefix = idPrefix;
        this.factory = new InferenceRequestFactory(new PromptHasher(), TENANT, clock);
    }

    /** The trace request behind request {@code i}, scaled, with its block ids shifted for its pass. */
    public TraceRequest traceRequest(int i) {
        TraceRequest original = trace.get(i % trace.size());
        long shift = (long) (i / trace.size()) * blockIdStride;
        long[] ids = Arrays.stream(original.blockIds()).map(id -> id + shift).toArray();
        int tokens = (int) Math.max(1, Math.round((double) original.inputTokens() * blockTokens / original.blockTokens()));
        return new TraceRequest(original.arrivalMs(), tokens, Math.max(1, original.outputTokens()), ids, blockTokens);
    }

    public String requestId(int i) {
        return idPrefix + i;
    }

    /** What every request id starts with, followed by the request's index. */
    public String requestIdPrefix() {
        return idPrefix;
    }

    /** Request {@code i} as it goes on the requests topic. Its prompt is user data: never log it. */
    public InferenceRequest request(int i) {
        TraceRequest scaled = traceRequest(i);
        return factory.create(SubmitRequest.builder()
                .requestId(requestId(i))
                .model(KvrouteServices.MODEL)
                .prompt(SyntheticPrompt.forRequest(scaled))
                .maxTokens(scaled.outputTokens())
                .build());
    }
}
