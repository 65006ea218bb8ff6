/**
 * The Java client of kvroute: {@link io.kvroute.ingress.client.KvrouteClient} submits requests and
 * completes futures; {@link io.kvroute.ingress.client.ResponseAssembler} holds the response rule every
 * reader of the responses topic follows; collectors and decision readers read back what happened.
 */
package io.kvroute.ingress.client;
