package io.kvroute.bench.sim;

import io.kvroute.router.routing.TtftModel;
import io.kvroute.worker.engine.sim.CostModel;
import io.kvroute.worker.engine.sim.EngineLimits;
import java.util.List;
import java.util.Locale;

/**
 * A simulated GPU's model and hardware: the worker's step-time coefficients and scheduler
 * limits. {@link #LLAMA_8B_H100} is the worker's own engine on one H100 of a DGX-H100-class node:
 * 26,000 KV pages in HBM plus a host-DRAM prefix tier of {@value #HOST_KV_PAGES_PER_GPU} pages
 * (2M tokens = 256 GiB at 128 KiB/token, the node's 2 TiB of DRAM shared by 8 GPUs), as
 * long-context deployments run with KV offloading (Mooncake, LMCache). {@link #LLAMA_70B_4XH100}
 * uses the 70B / 4×H100 column of ENGINE_MODEL.md (KV ≈ 460k tokens per GPU at TP 4).
 *
 * @param publishesKvEvents whether the workers tell the router what they cache, as kvroute's own
 *                          engine does; OpenAI-compatible servers behind kvroute do not yet, so
 *                          the router knows only where it sent each prompt ({@link #withoutKvEvents})
 */
public record EngineProfile(String name, CostModel costModel, EngineLimits limits, boolean publishesKvEvents) {
    public static final int HOST_KV_PAGES_PER_GPU = 131_072;
    public static final EngineProfile LLAMA_8B_H100 = new EngineProfile("llama-8b-h100", CostModel.llama8bH100(),
            EngineLimits.defaults().withHostKvBlocks(HOST_KV_PAGES_PER_GPU));
    /** 80 KiB of KV per token per GPU at TP 4 (80 layers × 8 heads × 128 × 2 × 2 / 4). */
    public static final EngineProfile LLAMA_70B_4XH100 = new EngineProfile("llama-70b-4xh100",
            new CostModel(12.6, 0.076, 1.6e-6, 0.0044, 4.8e-5, 1.0,
                    CostModel.hostLoadMsPerToken(80 * 1024, CostModel.PCIE5_X16_EFFECTIVE_BYTES_PER_SECOND)),
            new EngineLimits(28_750, EngineLimits.DEFAULT_MAX_RUNNING, EngineLimits.DEFAULT_MAX_BATCHED_TOKENS,
                    HOST_KV_PAGES_PER_GPU * 8 / 5));
    public static final List<EngineProfile> ALL = List.of(LLAMA_8B_H100, LLAMA_70B_4XH100);

    public EngineProfile(String name, CostModel costModel, EngineLimits limits) {
        this(name, costModel, limits, true);
    }

    /** This profile with a KV pool of {@code pages} pages of 16 tokens. */
    public EngineProfile withKvBlocks(int pages) {
        return new EngineProfile(name + "/kv" + pages, costModel,
                new EngineLimits(pages, limits.maxRunning(), limits.maxBatchedTokens(), limits.hostKvBlocks()), publishesKvEvents);
    }

    /** This profile with a host-DRAM prefix tier of {@code pages} pages (0: none). */
    public EngineProfile withHostKvBlocks(int pages) {
        return new EngineProfile(name + "/host" + pages, costModel, limits.withHostKvBlocks(pages), publishesKvEvents);
    }

    /** This profile with workers that publish no KV events (the router's own placements are all it knows of their caches). */
    public EngineProfile withoutKvEvents() {
        return new EngineProfile(name + "/no-kv-events", costModel, limits, false);
    }

    /**
     * The router's model of this engine ({@code router.engine.model} of the same name): the
     * simulated router is configured for the GPUs it routes to. The variants (KV pool, host tier,
     * no KV events) run the same step times.
     */
    public TtftModel routerModel() {
        int variant = name.indexOf('/');
        return TtftModel.named(variant < 0 ? name : name.substring(0, variant));
    }

    /** The pool workers of this profile name in their telemetry: its model and hardware, without the variant. */
    public String poolName() {
        int variant = name.indexOf('/');
        return variant < 0 ? name : name.substring(0, variant);
    }

    public static EngineProfile named(String name) {
        String wanted = name.toLowerCase(Locale.ROOT);
        return ALL.stream().filter(p -> p.name().equals(wanted)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "unknown engine profile '" + name + "', known: " + ALL.stream().map(EngineProfile::name).toList()));
    }
}
