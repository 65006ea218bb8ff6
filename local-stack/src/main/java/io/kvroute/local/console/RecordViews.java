package io.kvroute.local.console;

import io.kvroute.schemas.topics.DecisionComponents;
import io.kvroute.schemas.v1.CandidateScore;
import io.kvroute.schemas.v1.ChatMessage;
import io.kvroute.schemas.v1.InferenceRequest;
import io.kvroute.schemas.v1.RoutingDecision;
import io.kvroute.schemas.v1.TerminalResult;
import io.kvroute.schemas.v1.WorkerTelemetry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The console's JSON shape of kvroute's records. Prompts are user data: a request is shown by its
 * ids, sizes and hash counts, never its text; response chunks are counted, never shown.
 */
final class RecordViews {
    private RecordViews() {
    }

    static Map<String, Object> worker(WorkerTelemetry t, long nowMs, long staleAfterMs) {
        Map<String, Object> w = new LinkedHashMap<>();
        long age = Math.max(0, nowMs - t.getObservedAtMs());
        w.put("workerId", t.getWorkerId());
        w.put("region", t.getRegion());
        w.put("pool", t.getPool());
        w.put("status", t.getStatus().name());
        w.put("stale", age > staleAfterMs);
        w.put("ageMs", age);
        w.put("observedAtMs", t.getObservedAtMs());
        w.put("models", List.copyOf(t.getModels()));
        w.put("ownedPartitions", List.copyOf(t.getOwnedPartitions()));
        w.put("kvKnown", t.getKvBlocksTotal() > 0);
        w.put("kvUsage", t.getKvUsage());
        w.put("kvBlocksUsed", t.getKvBlocksUsed());
        w.put("kvBlocksTotal", t.getKvBlocksTotal());
        w.put("running", t.getRunningRequests());
        w.put("waiting", t.getWaitingRequests());
        w.put("maxRunning", t.getMaxRunningRequests());
        w.put("owedPrefillTokens", t.getOwedPrefillTokens());
        w.put("owedPrefillRequests", t.getOwedPrefillRequests());
        w.put("queuedPrefillTokens", t.getQueuedPrefillTokens());
        w.put("prefixHitRate", t.getPrefixCacheHitRate());
        w.put("tokensPerSecond", t.getTokensPerSecond());
        w.put("recentTtftMs", t.getRecentTtftMs());
        w.put("decodeMsPerToken", t.getDecodeMsPerToken());
        w.put("rateLimitedUntilMs", t.getRateLimitedUntilMs());
        return w;
    }

    static Map<String, Object> decision(RoutingDecision d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("requestId", d.getRequestId());
        m.put("tenant", d.getTenant());
        m.put("model", d.getModel());
        m.put("outcome", d.getOutcome().name());
        m.put("attempt", d.getAttempt());
        m.put("region", d.getRegion());
        m.put("partition", d.getPartition());
        m.put("workerId", d.getWorkerId());
        m.put("policy", d.getPolicy());
        m.put("score", d.getScore());
        m.put("promptBlocks", d.getPromptBlocks());
        m.put("matchedPrefixBlocks", d.getMatchedPrefixBlocks());
        m.put("promptTokens", d.getPromptTokens());
        m.put("maxTokens", d.getMaxTokens());
        m.put("candidatesConsidered", d.getCandidatesConsidered());
        List<Map<String, Object>> candidates = new ArrayList<>();
        for (CandidateScore c : d.getTopCandidates()) {
            Map<String, Object> cm = new LinkedHashMap<>();
            cm.put("workerId", c.getWorkerId());
            cm.put("region", c.getRegion());
            cm.put("partition", c.getPartition());
            cm.put("score", c.getScore());
            cm.put("components", new TreeMap<>(DecisionComponents.of(d, c)));
            candidates.add(cm);
        }
        m.put("candidates", candidates);
        m.put("reason", d.getReason());
        m.put("decidedAtMs", d.getDecidedAtMs());
        m.put("routerInstance", d.getRouterInstance());
        return m;
    }

    /** A request without its prompt: ids, sizes and how many prefix-block hashes it carries. */
    static Map<String, Object> request(InferenceRequest r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("requestId", r.getRequestId());
        m.put("customId", r.getCustomId());
        m.put("tenant", r.getTenant());
        m.put("model", r.getModel());
        m.put("priority", r.getPriority().name());
        m.put("maxTokens", r.getMaxTokens());
        m.put("promptTokenEstimate", r.getPromptTokenEstimate());
        int chars = 0;
        int messages = 0;
        if (r.getPrompt() != null) {
            chars = r.getPrompt().length();
        }
        if (r.getMessages() != null) {
            for (ChatMessage message : r.getMessages()) {
                chars += message.getContent().length();
                messages++;
            }
        }
        m.put("promptChars", chars);
        m.put("messages", messages);
        m.put("prefixBlocks", r.getPrefixBlockHashes().size());
        m.put("prefixBlockTokens", r.getPrefixBlockTokens());
        m.put("allowedRegions", List.copyOf(r.getAllowedRegions()));
        m.put("deadlineMs", r.getDeadlineMs());
        m.put("submittedAtMs", r.getSubmittedAtMs());
        return m;
    }

    static Map<String, Object> terminal(TerminalResult t) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("status", t.getStatus().name());
        m.put("finishReason", t.getFinishReason());
        m.put("promptTokens", t.getUsage().getPromptTokens());
        m.put("completionTokens", t.getUsage().getCompletionTokens());
        m.put("cachedTokens", t.getUsage().getCachedTokens());
        m.put("ttftMs", t.getTtftMs());
        m.put("decodeMs", t.getDecodeMs());
        m.put("workerId", t.getWorkerId());
        m.put("region", t.getRegion());
        m.put("error", t.getError());
        m.put("queuedAheadTokens", t.getQueuedAheadTokens());
        return m;
    }
}
