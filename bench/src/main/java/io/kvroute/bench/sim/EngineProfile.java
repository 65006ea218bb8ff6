package io.kvroute.bench.sim;

import io.kvroute.router.routing.TtftModel;
import io.kvroute.worker.engine.sim.CostModel;
import io.kvroute.worker.engine.sim.EngineLimits;
import io.kvroute.worker.engine.sim.KvBlockPool;
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
    /**
     * Llama-3.1-8B on one A100-80GB ({@link CostModel#llama8bA100()}: inference-sim's A100-80 fit for
     * T0 and a, the H100's physics terms scaled by BF16 peak and HBM bandwidth). KV: the same 80 GB at
     * 0.9 as the H100, 72 GB less 16.1 GB of BF16 weights = 55.9 GB / 128 KiB ≈ 426k tokens, the
     * H100 profile's 26,000 pages after activation room [derived]. vLLM's defaults on an A100 cap a
     * step at 2,048 tokens and 256 sequences for the OpenAI server (vllm/engine/arg_utils.py: GPUs
     * of at least 70 GiB but A100s get 8,192 and 1,024) [read]. Host tier: a DGX A100 also takes
     * 2 TB of DRAM for 8 GPUs, {@value #HOST_KV_PAGES_PER_GPU} pages each, over PCIe 4.0.
     */
    public static final EngineProfile LLAMA_8B_A100 = new EngineProfile("llama-8b-a100", CostModel.llama8bA100(),
            new EngineLimits(KvBlockPool.DEFAULT_CAPACITY_BLOCKS, EngineLimits.DEFAULT_MAX_RUNNING, 2_048,
                    HOST_KV_PAGES_PER_GPU));
    public static final List<EngineProfile> ALL = List.of(LLAMA_8B_H100, LLAMA_8B_A100, LLAMA_70B_4XH100);

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
        return TtftModel.named(baseName());
    }

    /** The named profile this one is a variant of ({@code llama-8b-a100} for {@code llama-8b-a100/kv12000}). */
    public String baseName() {
        int variant = name.indexOf('/');
        return variant < 0 ? name : name.substring(0, variant);
    }

    /**
     * This profile with the variants of {@code run} (its KV pool, host tier and KV events, as
     * {@link #withKvBlocks}, {@link #withHostKvBlocks} and {@link #withoutKvEvents} named them): a
     * fleet pool's engine gets the run's {@code --kv-blocks}, {@code --host-kv-blocks} and
     * {@code --no-kv-events} as the run's own engine does.
     */
    public EngineProfile withVariantsOf(EngineProfile run) {
        EngineProfile out = this;
        String[] variants = run.name().split("/");
        for (int i = 1; i < variants.length; i++) {
            String v = variants[i];
            if (v.equals("no-kv-events")) {
                out = out.withoutKvEvents();
            } else if (v.startsWith("kv")) {
                out = out.withKvBlocks(Integer.parseInt(v.substring(2)));
            } else if (v.startsWith("host")) {
                out = out.withHostKvBlocks(Integer.parseInt(v.substring(4)));
            } else {
                throw new IllegalArgumentException("unknown variant '" + v + "' of engine profile " + run.name());
            }
        }
        return out;
    }

    public static EngineProfile named(String name) {
        String wanted = name.toLowerCase(Locale.ROOT);
        return ALL.stream().filter(p -> p.name().equals(wanted)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "unknown engine profile '" + name + "', known: " + ALL.stream().map(EngineProfile::name).toList()));
    }
}
