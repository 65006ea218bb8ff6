package io.kvroute.worker.engine.openai.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Optional;

/**
 * How full llama.cpp's KV cache is, read from its {@code GET /slots} page, since its {@code /metrics}
 * no longer exports {@code llamacpp:kv_cache_usage_ratio} (gone with the KV-cache API rework of
 * mid-2025). The page is an array with one object per slot: {@code n_ctx} (the slot's context) and
 * {@code is_processing}, and for a slot that has had a task {@code n_prompt_tokens}, the tokens the
 * slot holds in the cache (the prompt and the tokens generated so far, despite the name); the
 * newest builds add {@code n_past}.
 *
 * <p>KV use is the tokens held by the slots that are processing over the sum of the slots'
 * contexts. An idle slot's tokens are not counted: the server reuses or overwrites them for the
 * next request, like the cached blocks no request references that vLLM does not count as used.
 * With a unified KV cache ({@code -kvu}) every slot reports the whole pool as its {@code n_ctx}, so
 * this understates the fill by up to the number of slots; the page does not tell the two apart.
 */
public final class LlamaCppSlots {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Tokens the processing slots hold, out of the slots' total context. */
    public record Fill(long usedTokens, long capacityTokens) {
        public double usage() {
            return capacityTokens <= 0 ? 0.0 : Math.min(1.0, (double) usedTokens / capacityTokens);
        }
    }

    private LlamaCppSlots() {
    }

    /**
     * The fill the page tells, or empty when it does not: not a JSON array of slots, no slot with a
     * context, or a processing slot that gives no token count (older builds).
     */
    public static Optional<Fill> parse(String body) {
        JsonNode slots;
        try {
            slots = MAPPER.readTree(body);
        } catch (JsonProcessingException e) {
            return Optional.empty();
        }
        if (slots == null || !slots.isArray()) {
            return Optional.empty();
        }
        long capacity = 0;
        long used = 0;
        for (JsonNode slot : slots) {
            long context = slot.path("n_ctx").asLong(0);
            if (context <= 0) {
                return Optional.empty();
            }
            capacity += context;
            if (slot.path("is_processing").asBoolean(false)) {
                JsonNode held = slot.has("n_prompt_tokens") ? slot.path("n_prompt_tokens") : slot.path("n_past");
                if (!held.canConvertToLong() || held.asLong() < 0) {
                    return Optional.empty();
                }
                used += Math.min(context, held.asLong());
            }
        }
        return capacity > 0 ? Optional.of(new Fill(used, capacity)) : Optional.empty();
    }
}
