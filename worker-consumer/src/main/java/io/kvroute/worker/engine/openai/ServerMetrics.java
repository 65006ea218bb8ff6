package io.kvroute.worker.engine.openai;

import io.kvroute.worker.engine.openai.internal.LlamaCppSlots;
import io.kvroute.worker.engine.openai.internal.PrometheusText;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * What an inference server's {@code /metrics} page says about its load, mapped from the names
 * vLLM, SGLang and llama.cpp use. Each field is null when the server does not report it; a null
 * {@code kvUsage} means the KV use is not known (llama.cpp builds since mid-2025 export none, and
 * {@link #withSlots} fills it from their {@code /slots} page when that is enabled).
 *
 * @param family         {@code vllm}, {@code sglang}, {@code llamacpp}, or {@code unknown}
 * @param kvUsage        share of the KV cache in use, in [0, 1]
 * @param running        requests the server is running
 * @param waiting        requests queued in the server
 * @param prefixHitRate  prefix-cache hits / queries (over the last scrape interval for vLLM's counters)
 * @param kvBlocksTotal  KV capacity in blocks of {@code kvBlockTokens} tokens, when the server tells
 * @param kvBlockTokens  tokens per KV block, when the server tells
 * @param prefixQueries  vLLM's cumulative prefix-cache query counter (tokens), for the next interval's rate
 * @param prefixHits     vLLM's cumulative prefix-cache hit counter (tokens)
 */
public record ServerMetrics(String family, Double kvUsage, Integer running, Integer waiting, Double prefixHitRate,
                            Long kvBlocksTotal, Integer kvBlockTokens, Double prefixQueries, Double prefixHits) {

    /**
     * Maps a parsed page; {@code previous} (or null) supplies the counters of the last scrape, so a
     * hit rate from counters covers the last interval rather than the server's whole life.
     */
    public static ServerMetrics from(PrometheusText page, ServerMetrics previous) {
        if (hasPrefix(page, "vllm:")) {
            return vllm(page, previous);
        }
        if (hasPrefix(page, "sglang:")) {
            return new ServerMetrics("sglang", value(page.mean("sglang:token_usage")), count(page.sum("sglang:num_running_reqs")),
                    count(page.sum("sglang:num_queue_reqs")), value(page.mean("sglang:cache_hit_rate")),
                    longValue(page.sum("sglang:max_total_num_tokens")), page.has("sglang:max_total_num_tokens") ? 1 : null,
                    null, null);
        }
        if (hasPrefix(page, "llamacpp:")) {
            return new ServerMetrics("llamacpp", value(page.mean("llamacpp:kv_cache_usage_ratio")),
                    count(page.sum("llamacpp:requests_processing")), count(page.sum("llamacpp:requests_deferred")),
                    null, null, null, null, null);
        }
        return new ServerMetrics("unknown", null, null, null, null, null, null, null, null);
    }

    /** These metrics with the KV use of llama.cpp's {@code /slots} page, in blocks of one token. */
    public ServerMetrics withSlots(LlamaCppSlots.Fill fill) {
        return new ServerMetrics(family, fill.usage(), running, waiting, prefixHitRate, fill.capacityTokens(), 1,
                prefixQueries, prefixHits);
    }

    private static ServerMetrics vllm(PrometheusText page, ServerMetrics previous) {
        Double kvUsage = value(first(page.mean("vllm:kv_cache_usage_perc"), page.mean("vllm:gpu_cache_usage_perc")));
        Double queries = value(counter(page, "vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries"));
        Double hits = value(counter(page, "vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits"));
        Long blocks = null;
        Integer blockTokens = null;
        for (PrometheusText.Sample info : page.samples("vllm:cache_config_info")) {
            blocks = parseLong(info.labels(), "num_gpu_blocks", blocks);
            Long size = parseLong(info.labels(), "block_size", null);
            blockTokens = size == null ? blockTokens : size.intValue();
        }
        return new ServerMetrics("vllm", kvUsage, count(page.sum("vllm:num_requests_running")),
                count(page.sum("vllm:num_requests_waiting")), hitRate(queries, hits, previous), blocks, blockTokens, queries, hits);
    }

    private static Double hitRate(Double queries, Double hits, ServerMetrics previous) {
        if (queries == null || hits == null) {
            return null;
        }
        if (previous != null && previous.prefixQueries() != null && previous.prefixHits() != null
                && queries >= previous.prefixQueries()) {
            double dq = queries - previous.prefixQueries();
            if (dq == 0) {
                return previous.prefixHitRate();
            }
            return clamp((hits - previous.prefixHits()) / dq);
        }
        return queries > 0 ? clamp(hits / queries) : null;
    }

    /** A counter is exposed as {@code <name>_total}; older exporters wrote the bare name. */
    private static OptionalDouble counter(PrometheusText page, String name, String oldName) {
        return first(first(page.sum(name + "_total"), page.sum(name)), first(page.sum(oldName + "_total"), page.sum(oldName)));
    }

    private static Long parseLong(Map<String, String> labels, String key, Long otherwise) {
        String v = labels.get(key);
        if (v == null || v.isEmpty() || v.equals("None")) {
            return otherwise;
        }
        try {
            return (long) Double.parseDouble(v);
        } catch (NumberFormatException e) {
            return otherwise;
        }
    }

    private static boolean hasPrefix(PrometheusText page, String prefix) {
        return page.names().stream().anyMatch(n -> n.startsWith(prefix));
    }

    private static OptionalDouble first(OptionalDouble a, OptionalDouble b) {
        return a.isPresent() ? a : b;
    }

    private static Double value(OptionalDouble v) {
        return v.isPresent() && Double.isFinite(v.getAsDouble()) ? v.getAsDouble() : null;
    }

    private static Integer count(OptionalDouble v) {
        return v.isPresent() && Double.isFinite(v.getAsDouble()) ? (int) Math.round(v.getAsDouble()) : null;
    }

    private static Long longValue(OptionalDouble v) {
        return v.isPresent() && Double.isFinite(v.getAsDouble()) ? Math.round(v.getAsDouble()) : null;
    }

    private static double clamp(double v) {
        return Math.max(0.0, Math.min(1.0, v));
    }
}
