package io.kvroute.ingress.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kvroute.schemas.topics.DecisionComponents;
import io.kvroute.schemas.v1.CandidateScore;
import io.kvroute.schemas.v1.RoutingDecision;
import java.io.UncheckedIOException;
import java.util.Locale;

/** Renders a {@link RoutingDecision} as one line of text or one JSON object (ids, scores, reason; no prompt). */
public final class DecisionFormatter {
    private final ObjectMapper json = new ObjectMapper();

    public String text(RoutingDecision d) {
        StringBuilder line = new StringBuilder()
                .append(d.getRequestId()).append(' ').append(d.getOutcome())
                .append(" attempt=").append(d.getAttempt());
        if (d.getRegion() != null) {
            line.append(" region=").append(d.getRegion());
        }
        if (d.getPartition() != null) {
            line.append(" partition=").append(d.getPartition());
        }
        if (d.getWorkerId() != null) {
            line.append(" worker=").append(d.getWorkerId());
        }
        line.append(" policy=").append(d.getPolicy())
                .append(" matched=").append(d.getMatchedPrefixBlocks()).append('/').append(d.getPromptBlocks());
        if (d.getScore() != null) {
            line.append(" score=").append(String.format(Locale.ROOT, "%.4f", d.getScore()));
        }
        line.append(" candidates=").append(d.getCandidatesConsidered())
                .append(" reason=\"").append(d.getReason()).append('"');
        return line.toString();
    }

    public String json(RoutingDecision d) {
        ObjectNode node = json.createObjectNode();
        node.put("request_id", d.getRequestId());
        node.put("tenant", d.getTenant());
        node.put("model", d.getModel());
        node.put("outcome", d.getOutcome().name());
        node.put("attempt", d.getAttempt());
        node.put("region", d.getRegion());
        node.put("partition", d.getPartition());
        node.put("worker_id", d.getWorkerId());
        node.put("policy", d.getPolicy());
        node.put("prompt_blocks", d.getPromptBlocks());
        node.put("matched_prefix_blocks", d.getMatchedPrefixBlocks());
        node.put("score", d.getScore());
        node.put("candidates_considered", d.getCandidatesConsidered());
        var candidates = node.putArray("top_candidates");
        for (CandidateScore c : d.getTopCandidates()) {
            ObjectNode cn = candidates.addObject();
            cn.put("worker_id", c.getWorkerId());
            cn.put("region", c.getRegion());
            cn.put("partition", c.getPartition());
            cn.put("score", c.getScore());
            ObjectNode components = cn.putObject("components");
            DecisionComponents.of(d, c).forEach(components::put);
        }
        node.put("reason", d.getReason());
        node.put("decided_at_ms", d.getDecidedAtMs());
        try {
            return json.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
