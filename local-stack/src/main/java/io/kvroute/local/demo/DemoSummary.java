package io.kvroute.local.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a demo run measured. {@code lost} counts requests with no terminal result by the end;
 * TTFT is observed by the client (submit to first chunk), the engine's own figure is beside it.
 */
public record DemoSummary(
        String trace,
        String policy,
        int requests,
        int completed,
        int failed,
        int rejected,
        int expired,
        int cancelled,
        int lost,
        Percentiles ttft,
        Percentiles engineTtft,
        Percentiles e2e,
        double prefixHitRate,
        Map<String, Integer> regions,
        long peakRssBytes,
        double durationSeconds,
        int routers,
        long peerPlacementsFollowed,
        Map<String, Object> security) {

    /** This summary for a run with {@code routers} router instances, which followed that many of each other's placements. */
    public DemoSummary withRouters(int routers, long peerPlacementsFollowed) {
        return new DemoSummary(trace, policy, requests, completed, failed, rejected, expired, cancelled, lost, ttft, engineTtft, e2e,
                prefixHitRate, regions, peakRssBytes, durationSeconds, routers, peerPlacementsFollowed, security);
    }

    /** This summary for a run on a secured cluster ({@code null}: not secured). */
    public DemoSummary withSecurity(Map<String, Object> security) {
        return new DemoSummary(trace, policy, requests, completed, failed, rejected, expired, cancelled, lost, ttft, engineTtft, e2e,
                prefixHitRate, regions, peakRssBytes, durationSeconds, routers, peerPlacementsFollowed, security);
    }

    public Map<String, Object> toJson() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("trace", trace);
        json.put("policy", policy);
        json.put("requests", requests);
        json.put("completed", completed);
        json.put("failed", failed);
        json.put("rejected", rejected);
        json.put("expired", expired);
        json.put("cancelled", cancelled);
        json.put("lost", lost);
        json.put("ttft_ms", Map.of("p50", ttft.at(50), "p90", ttft.at(90), "p99", ttft.at(99)));
        json.put("engine_ttft_ms", Map.of("p50", engineTtft.at(50), "p99", engineTtft.at(99)));
        json.put("e2e_ms", Map.of("p50", e2e.at(50), "p99", e2e.at(99)));
        json.put("prefix_hit_rate", Math.round(prefixHitRate * 10_000) / 10_000.0);
        json.put("regions", regions);
        json.put("routers", routers);
        json.put("peer_placements_followed", peerPlacementsFollowed);
        json.put("peak_rss_mb", peakRssBytes / (1024 * 1024));
        json.put("duration_s", Math.round(durationSeconds * 10) / 10.0);
        if (security != null) {
            json.put("security", security);
        }
        return json;
    }

    public void writeJson(Path path) throws IOException {
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(path.toFile(), toJson());
    }

    public void printTable(PrintStream out) {
        out.println();
        out.println("kvroute demo: " + requests + " requests of " + trace + ", policy " + policy);
        out.println("  ------------------------------------------------");
        out.printf("  %-24s %s%n", "completed", completed);
        out.printf("  %-24s %s%n", "failed", failed);
        out.printf("  %-24s %s%n", "rejected", rejected);
        out.printf("  %-24s %s%n", "expired / cancelled", expired + " / " + cancelled);
        out.printf("  %-24s %s%n", "lost", lost);
        out.printf("  %-24s p50 %d ms, p90 %d ms, p99 %d ms%n", "TTFT (client)", ttft.at(50), ttft.at(90), ttft.at(99));
        out.printf("  %-24s p50 %d ms, p99 %d ms%n", "TTFT (engine)", engineTtft.at(50), engineTtft.at(99));
        out.printf("  %-24s p50 %d ms, p99 %d ms%n", "end to end", e2e.at(50), e2e.at(99));
        out.printf("  %-24s %.1f %%%n", "prefix cache hit rate", prefixHitRate * 100);
        regions.forEach((region, count) -> out.printf("  %-24s %d requests%n", "region " + region, count));
        if (routers > 1) {
            out.printf("  %-24s %d, following %d of each other's placements%n", "router instances", routers, peerPlacementsFollowed);
        }
        out.printf("  %-24s %d MB (broker + registry + router/workers/client)%n", "peak RSS", peakRssBytes / (1024 * 1024));
        out.printf("  %-24s %.1f s%n", "duration", durationSeconds);
        if (security != null) {
            out.printf("  %-24s %s, %s, %s tenants with topics of their own%n", "security", security.get("protocol"),
                    security.get("sasl_mechanism"), security.get("tenants"));
        }
        out.println("  ------------------------------------------------");
    }
}
