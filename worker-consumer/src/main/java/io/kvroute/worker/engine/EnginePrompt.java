package io.kvroute.worker.engine;

import java.util.List;
import java.util.Objects;

/**
 * The user data a real inference server needs to run a request: a completion prompt or chat
 * messages, the model and the sampling parameters. Engines that only model cost (the simulator)
 * ignore it. Its text is user data: {@link #toString()} shows sizes only, so it never reaches a log.
 *
 * @param model       the model name the request asked for, or null for the engine's own
 * @param prompt      a completion prompt; exactly one of {@code prompt} and {@code messages} is set
 * @param messages    chat messages, or null for a completion prompt
 * @param temperature sampling temperature, or null for the server's default
 * @param topP        nucleus sampling bound, or null
 * @param seed        sampling seed, or null
 * @param stop        stop sequences, possibly empty
 * @param cacheSalt   the request's cache salt (derived from its prefix salt, never the salt), for
 *                    servers that isolate their prefix cache by it; or null
 */
public record EnginePrompt(String model, String prompt, List<Message> messages, Double temperature, Double topP,
                           Long seed, List<String> stop, String cacheSalt) {

    /** One chat message. */
    public record Message(String role, String content) {
        public Message {
            Objects.requireNonNull(role, "role");
            Objects.requireNonNull(content, "content");
        }

        @Override
        public String toString() {
            return "Message[" + role + ", " + content.length() + " chars]";
        }
    }

    /** A prompt without a cache salt. */
    public EnginePrompt(String model, String prompt, List<Message> messages, Double temperature, Double topP, Long seed,
                        List<String> stop) {
        this(model, prompt, messages, temperature, topP, seed, stop, null);
    }

    public EnginePrompt {
        if ((prompt == null) == (messages == null)) {
            throw new IllegalArgumentException("exactly one of prompt and messages must be set");
        }
        messages = messages == null ? null : List.copyOf(messages);
        stop = stop == null ? List.of() : List.copyOf(stop);
    }

    /** A completion prompt with the server's default sampling. */
    public static EnginePrompt completion(String model, String prompt) {
        return new EnginePrompt(model, prompt, null, null, null, null, List.of());
    }

    /** Chat messages with the server's default sampling. */
    public static EnginePrompt chat(String model, List<Message> messages) {
        return new EnginePrompt(model, null, messages, null, null, null, List.of());
    }

    public boolean isChat() {
        return messages != null;
    }

    @Override
    public String toString() {
        return "EnginePrompt[model=" + model + (isChat() ? ", messages=" + messages.size() : ", prompt=" + prompt.length() + " chars")
                + (cacheSalt == null ? "" : ", cacheSalt=set") + "]";
    }
}
