package io.kvroute.ingress.client;

/** Where a reader of a kvroute topic begins: everything kept on the topic, or only what comes next. */
public enum StartPosition {
    BEGINNING,
    END
}
