package io.coord.example;

import io.coord.spring.boot.CoordConfig;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;

/**
 * The service's pricing, kept at {@code /config/shop/pricing} as JSON, e.g.
 * {@code {"currency":"EUR","feeCents":25}}. A value with an unknown field, a blank currency or a
 * negative fee is refused, and the service keeps the one it had.
 */
@CoordConfig("shop/pricing")
public record Pricing(@NotBlank String currency, @Min(0) int feeCents) {
}
