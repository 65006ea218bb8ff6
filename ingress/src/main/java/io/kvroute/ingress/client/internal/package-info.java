/** Kafka plumbing behind the client API; not for use outside ingress. */
package io.kvroute.ingress.client.internal;
