/**
 * picocli commands {@code submit}, {@code collect} and {@code decisions}, meant as subcommands of the
 * top-level {@code kvroute} command. Each returns an exit code from {@code call()} and never exits the JVM.
 */
package io.kvroute.ingress.cli;
