/**
 * Tenant quotas: requests and tokens per minute per tenant, reserved at admission and corrected
 * by actual usage ({@link io.kvroute.router.routing.quota.TenantQuotas}). Pure Java, clock-free.
 */
package io.kvroute.router.routing.quota;
