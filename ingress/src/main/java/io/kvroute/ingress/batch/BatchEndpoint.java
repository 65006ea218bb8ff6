package io.kvroute.ingress.batch;

import java.util.Arrays;
import java.util.Optional;

/** The OpenAI endpoints a batch line may target, with the object type their results carry. */
public enum BatchEndpoint {
    CHAT_COMPLETIONS("/v1/chat/completions", "chat.completion", "chatcmpl-"),
    COMPLETIONS("/v1/completions", "text_completion", "cmpl-");

    private final String url;
    private final String objectType;
    private final String idPrefix;

    BatchEndpoint(String url, String objectType, String idPrefix) {
        this.url = url;
        this.objectType = objectType;
        this.idPrefix = idPrefix;
    }

    public String url() {
        return url;
    }

    public String objectType() {
        return objectType;
    }

    public String idPrefix() {
        return idPrefix;
    }

    public static Optional<BatchEndpoint> forUrl(String url) {
        return Arrays.stream(values()).filter(e -> e.url.equals(url)).findFirst();
    }
}
