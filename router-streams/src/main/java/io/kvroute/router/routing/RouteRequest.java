package io.kvroute.router.routing;

import java.util.Objects;
import java.util.Set;

/**
 * What routing needs to know about one request: sizes, prefix block hashes and constraints,
 * never the prompt text.
 *
 * @param prefixBlockHashes chained hashes of the prompt's consecutive blocks of {@code blockTokens} tokens
 * @param allowedRegions    empty means any region
 * @param deadlineMs        epoch ms after which the request must not run; {@link #NO_DEADLINE} if none
 */
public record RouteRequest(
        String requestId,
        String tenant,
        String model,
        int promptTokens,
        long[] prefixBlockHashes,
        int blockTokens,
        int maxTokens,
        Set<String> allowedRegions,
        String priority,
        long deadlineMs) {

    public static final long NO_DEADLINE = Long.MAX_VALUE;

    public RouteRequest {
        Objects.requireNonNull(requestId, "requestId");
        // looked up only: these names come from users
        model = CanonicalNames.known(Objects.requireNonNull(model, "model"));
        prefixBlockHashes = prefixBlockHashes == null ? new long[0] : prefixBlockHashes.clone();
        allowedRegions = allowedRegions == null ? Set.of() : CanonicalNames.known(allowedRegions);
        if (blockTokens <= 0) {
            blockTokens = 64;
        }
    }

    @Override
    public long[] prefixBlockHashes() {
        return prefixBlockHashes.clone();
    }

    /** The hashes without a defensive copy, for read-only use inside this package. */
    long[] hashes() {
        return prefixBlockHashes;
    }

    public int promptBlocks() {
        return prefixBlockHashes.length;
    }

    /** This request allowed only in {@code regions} (empty: any region). */
    public RouteRequest withAllowedRegions(Set<String> regions) {
        return new RouteRequest(requestId, tenant, model, promptTokens, prefixBlockHashes, blockTokens, maxTokens, regions,
                priority, deadlineMs);
    }

    public boolean allowsRegion(String region) {
        return allowedRegions.isEmpty() || allowedRegions.contains(region);
    }

    public boolean hasDeadline() {
        return deadlineMs != NO_DEADLINE;
    }

    /** Prompt tokens already cached on a worker that holds the first {@code matchedBlocks} blocks. */
    public int cachedTokens(int matchedBlocks) {
        return (int) Math.min((long) matchedBlocks * blockTokens, promptTokens);
    }

    public int uncachedTokens(int matchedBlocks) {
        return promptTokens - cachedTokens(matchedBlocks);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RouteRequest other && requestId.equals(other.requestId);
    }

    @Override
    public int hashCode() {
        return requestId.hashCode();
    }

    @Override
    public String toString() {
        return "RouteRequest[" + requestId + ", model=" + model + ", promptTokens=" + promptTokens
                + ", blocks=" + prefixBlockHashes.length + ", maxTokens=" + maxTokens + "]";
    }
}
