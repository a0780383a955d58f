package io.coord.spring.boot;

import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.util.Comparator;
import java.util.List;

/** A config value's Bean Validation constraints, as the problem sentences coord-config reports. */
final class BeanValidationCheck implements CoordConfigs.ValueCheck {
    private final Validator validator;

    BeanValidationCheck(Validator validator) {
        this.validator = validator;
    }

    @Override
    public List<String> problems(Object value) {
        return validator.validate(value).stream()
                .sorted(Comparator.comparing((ConstraintViolation<Object> v) -> v.getPropertyPath().toString()))
                .map(v -> v.getPropertyPath() + " " + v.getMessage() + " (was " + v.getInvalidValue() + ")")
                .toList();
    }
}
