package io.coord.test;
