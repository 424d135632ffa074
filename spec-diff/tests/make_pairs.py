#!/usr/bin/env python3
"""Writes the focused spec pairs under tests/pairs/<rule>/{old,new}.yaml.

Each pair is the small base spec below and a copy with one edit that shows the rule the
directory is named after. The files are committed; rerun this after changing a pair
(`python3 spec-diff/tests/make_pairs.py`) and review the snapshots it changes.
"""
import copy
import os
import shutil

import yaml

BASE = {
    "openapi": "3.0.3",
    "info": {"title": "Pets", "version": "1.0.0"},
    "paths": {
        "/pets": {
            "get": {
                "operationId": "listPets",
                "parameters": [
                    {"name": "limit", "in": "query",
                     "schema": {"type": "integer", "format": "int32", "maximum": 100}},
                    {"name": "kind", "in": "query", "required": True,
                     "schema": {"type": "string", "enum": ["cat", "dog"]}},
                ],
                "responses": {
                    "200": {"description": "the pets", "content": {"application/json": {
                        "schema": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}}}}},
                    "404": {"description": "none"},
                },
            },
            "post": {
                "operationId": "createPet",
                "security": [{"bearer": []}],
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/NewPet"}}}},
                "responses": {
                    "201": {"description": "created", "content": {"application/json": {
                        "schema": {"$ref": "#/components/schemas/Pet"}}}},
                    "400": {"description": "refused", "x-level": "should", "x-decision": "3"},
                },
            },
        },
        "/pets/{id}": {
            "get": {
                "operationId": "getPet",
                "parameters": [{"name": "id", "in": "path", "required": True,
                                "schema": {"type": "integer", "format": "int64"}}],
                "responses": {"200": {"description": "one pet", "content": {"application/json": {
                    "schema": {"$ref": "#/components/schemas/Pet"}}}}},
            },
        },
    },
    "components": {
        "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer"},
            "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
        },
        "schemas": {
            "Pet": {"type": "object", "required": ["id", "name"], "properties": {
                "id": {"type": "integer", "format": "int64"},
                "name": {"type": "string", "maxLength": 64},
                "kind": {"$ref": "#/components/schemas/Kind"},
                "tag": {"type": "string"},
                "owner": {"$ref": "#/components/schemas/Owner"},
            }},
            "NewPet": {"type": "object", "required": ["name"], "properties": {
                "name": {"type": "string", "maxLength": 64, "minLength": 1},
                "tag": {"type": "string"},
                "age": {"type": "integer", "minimum": 0, "maximum": 50},
                "kind": {"$ref": "#/components/schemas/NewKind"},
                "nicknames": {"type": "array", "maxItems": 5, "minItems": 0,
                              "items": {"type": "string"}},
                "home": {"oneOf": [{"$ref": "#/components/schemas/Flat"},
                                   {"$ref": "#/components/schemas/House"}]},
            }},
            "Kind": {"type": "string", "enum": ["cat", "dog"]},
            "NewKind": {"type": "string", "enum": ["cat", "dog"]},
            "Owner": {"oneOf": [{"$ref": "#/components/schemas/Person"},
                                {"$ref": "#/components/schemas/Shelter"}]},
            "Person": {"type": "object", "required": ["name"],
                       "properties": {"name": {"type": "string"}}},
            "Shelter": {"type": "object", "required": ["city"],
                        "properties": {"city": {"type": "string"}}},
            "Flat": {"type": "object", "required": ["floor"],
                     "properties": {"floor": {"type": "integer"}}},
            "House": {"type": "object", "required": ["garden"],
                      "properties": {"garden": {"type": "boolean"}}},
            "Boat": {"type": "object", "required": ["berth"],
                     "properties": {"berth": {"type": "string"}}},
        },
    },
    "x-max-body": {"bytes": 65536, "status": 413, "level": "must", "decision": "22"},
}


def op(s, path, method):
    return s["paths"][path][method]


def schemas(s):
    return s["components"]["schemas"]


def set_(path, value):
    def edit(s):
        node = s
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = value
    return edit


def delete(path):
    def edit(s):
        node = s
        for k in path[:-1]:
            node = node[k]
        del node[path[-1]]
    return edit


def both(*edits):
    def edit(s):
        for e in edits:
            e(s)
    return edit


GET, POST, ONE = ("/pets", "get"), ("/pets", "post"), ("/pets/{id}", "get")
P = ["paths"]
S = ["components", "schemas"]

# name: (edit of the old spec or None, edit of the new spec (applied to the old one) or
# None for the base itself)
PAIRS = {
    "api-removed-without-deprecation": (None, delete(P + ["/pets/{id}"])),
    "api-removed-after-deprecation": (set_(P + ["/pets/{id}", "get", "deprecated"], True),
                                      delete(P + ["/pets/{id}"])),
    "api-added": (None, set_(P + ["/pets/{id}", "delete"], {
        "operationId": "deletePet",
        "parameters": [{"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}],
        "responses": {"204": {"description": "gone"}}})),
    "api-deprecated": (None, set_(P + ["/pets/{id}", "get", "deprecated"], True)),
    "api-operation-id-changed": (None, set_(P + ["/pets/{id}", "get", "operationId"], "findPet")),
    "api-security-added": (None, set_(P + ["/pets", "get", "security"], [{"bearer": []}])),
    "api-security-alternative-removed": (set_(P + ["/pets", "post", "security"], [{"bearer": []}, {"key": []}]), None),
    "api-security-alternative-added": (None, set_(P + ["/pets", "post", "security"], [{"bearer": []}, {"key": []}])),
    "security-scheme-changed": (None, set_(["components", "securitySchemes", "bearer"],
                                           {"type": "apiKey", "in": "header", "name": "X-Token"})),
    "new-required-request-parameter": (None, lambda s: op(s, *ONE).setdefault("parameters", []).append(
        {"name": "fields", "in": "query", "required": True, "schema": {"type": "string"}})),
    "new-optional-request-parameter": (None, lambda s: op(s, *ONE)["parameters"].append(
        {"name": "fields", "in": "query", "schema": {"type": "string"}})),
    "request-parameter-removed": (None, lambda s: op(s, *GET)["parameters"].pop(0)),
    "request-parameter-became-required": (None, set_(P + ["/pets", "get", "parameters", 0, "required"], True)),
    "request-parameter-became-optional": (None, set_(P + ["/pets", "get", "parameters", 1, "required"], False)),
    "request-parameter-encoding-changed": (None, both(
        set_(P + ["/pets", "get", "parameters", 1, "schema"], {"type": "array", "items": {"type": "string"}}),
        set_(P + ["/pets", "get", "parameters", 1, "explode"], False))),
    "new-required-request-body": (None, set_(P + ["/pets/{id}", "get", "requestBody"], {
        "required": True, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewPet"}}}})),
    "new-optional-request-body": (None, set_(P + ["/pets/{id}", "get", "requestBody"], {
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewPet"}}}})),
    "request-body-became-required": (set_(P + ["/pets", "post", "requestBody", "required"], False), None),
    "request-body-removed": (None, delete(P + ["/pets", "post", "requestBody"])),
    "request-body-media-type-removed": (
        set_(P + ["/pets", "post", "requestBody", "content", "application/x-www-form-urlencoded"],
             {"schema": {"$ref": "#/components/schemas/NewPet"}}), None),
    "request-body-media-type-added": (None, set_(
        P + ["/pets", "post", "requestBody", "content", "application/x-www-form-urlencoded"],
        {"schema": {"$ref": "#/components/schemas/NewPet"}})),
    "request-type-changed": (None, set_(S + ["NewPet", "properties", "age"], {"type": "string"})),
    "request-type-widened": (None, set_(S + ["NewPet", "properties", "age", "type"], "number")),
    "request-nullable-removed": (set_(S + ["NewPet", "properties", "tag", "nullable"], True), None),
    "request-enum-value-removed": (None, set_(S + ["NewKind", "enum"], ["cat"])),
    "request-enum-value-added": (None, set_(S + ["NewKind", "enum"], ["cat", "dog", "bird"])),
    "request-max-length-decreased": (None, set_(S + ["NewPet", "properties", "name", "maxLength"], 32)),
    "request-min-length-increased": (None, set_(S + ["NewPet", "properties", "name", "minLength"], 3)),
    "request-maximum-decreased": (None, set_(S + ["NewPet", "properties", "age", "maximum"], 30)),
    "request-minimum-increased": (None, set_(S + ["NewPet", "properties", "age", "minimum"], 1)),
    "request-max-items-decreased": (None, set_(S + ["NewPet", "properties", "nicknames", "maxItems"], 2)),
    "request-min-items-increased": (None, set_(S + ["NewPet", "properties", "nicknames", "minItems"], 1)),
    "request-exclusive-maximum-decreased": (None, set_(S + ["NewPet", "properties", "age", "exclusiveMaximum"], True)),
    "request-exclusive-minimum-increased": (None, set_(S + ["NewPet", "properties", "age", "exclusiveMinimum"], True)),
    "request-multiple-of-changed": (None, set_(S + ["NewPet", "properties", "age", "multipleOf"], 5)),
    "request-unique-items-set": (None, set_(S + ["NewPet", "properties", "nicknames", "uniqueItems"], True)),
    "request-max-properties-decreased": (None, set_(S + ["NewPet", "maxProperties"], 4)),
    "request-min-properties-increased": (None, set_(S + ["NewPet", "minProperties"], 2)),
    "request-pattern-added": (None, set_(S + ["NewPet", "properties", "name", "pattern"], "^[a-z]+$")),
    "request-pattern-changed": (set_(S + ["NewPet", "properties", "name", "pattern"], "^[A-Za-z]+$"),
                                set_(S + ["NewPet", "properties", "name", "pattern"], "^[a-z]+$")),
    "request-pattern-rewritten": (set_(S + ["NewPet", "properties", "name", "pattern"], "^[a-z]+$"),
                                  set_(S + ["NewPet", "properties", "name", "pattern"], "^[A-Za-z]+$")),
    "request-additional-properties-restricted": (None, set_(S + ["NewPet", "additionalProperties"], False)),
    "request-limits-relaxed": (None, delete(S + ["NewPet", "properties", "name", "maxLength"])),
    "new-required-request-property": (None, both(
        set_(S + ["NewPet", "properties", "colour"], {"type": "string"}),
        lambda s: schemas(s)["NewPet"]["required"].append("colour"))),
    "new-optional-request-property": (None, set_(S + ["NewPet", "properties", "colour"], {"type": "string"})),
    "request-property-became-required": (None, lambda s: schemas(s)["NewPet"]["required"].append("tag")),
    "request-property-removed": (None, delete(S + ["NewPet", "properties", "tag"])),
    "request-one-of-branch-removed": (None, lambda s: schemas(s)["NewPet"]["properties"]["home"]["oneOf"].pop()),
    "request-one-of-branch-added": (None, lambda s: schemas(s)["NewPet"]["properties"]["home"]["oneOf"].append(
        {"$ref": "#/components/schemas/Boat"})),
    "response-success-status-removed": (None, both(
        delete(P + ["/pets/{id}", "get", "responses", "200"]),
        set_(P + ["/pets/{id}", "get", "responses", "204"], {"description": "no body"}))),
    "response-non-success-status-removed": (None, delete(P + ["/pets", "get", "responses", "404"])),
    "response-status-added": (None, set_(P + ["/pets/{id}", "get", "responses", "404"], {"description": "none"})),
    "response-media-type-removed": (
        set_(P + ["/pets/{id}", "get", "responses", "200", "content", "application/xml"],
             {"schema": {"$ref": "#/components/schemas/Pet"}}), None),
    "response-media-type-added": (None, set_(
        P + ["/pets/{id}", "get", "responses", "200", "content", "application/xml"],
        {"schema": {"$ref": "#/components/schemas/Pet"}})),
    "response-type-changed": (None, set_(S + ["Pet", "properties", "id"], {"type": "string"})),
    "response-became-nullable": (None, set_(S + ["Pet", "properties", "name", "nullable"], True)),
    "response-enum-value-added": (None, set_(S + ["Kind", "enum"], ["cat", "dog", "bird"])),
    "response-enum-value-removed": (None, set_(S + ["Kind", "enum"], ["cat"])),
    "response-required-property-removed": (None, both(
        delete(S + ["Pet", "properties", "name"]),
        set_(S + ["Pet", "required"], ["id"]))),
    "response-optional-property-removed": (None, delete(S + ["Pet", "properties", "tag"])),
    "response-property-became-optional": (None, set_(S + ["Pet", "required"], ["id"])),
    "response-property-added": (None, set_(S + ["Pet", "properties", "colour"], {"type": "string"})),
    "response-one-of-branch-added": (None, lambda s: schemas(s)["Owner"]["oneOf"].append(
        {"$ref": "#/components/schemas/Boat"})),
    "response-one-of-branch-removed": (None, lambda s: schemas(s)["Owner"]["oneOf"].pop()),
    "response-limits-widened": (None, set_(S + ["Pet", "properties", "name", "maxLength"], 128)),
    # The generated crate: the pairs above show most Rust rules (see the snapshots); these
    # show the rest, each with the spec change that causes it.
    "rust-item-removed": (None, delete(P + ["/pets/{id}"])),
    "rust-item-added": (None, set_(S + ["Extra"], {"type": "object", "properties": {"a": {"type": "string"}}})),
    "rust-item-renamed": (None, both(
        lambda s: schemas(s).__setitem__("Apartment", schemas(s).pop("Flat")),
        set_(S + ["NewPet", "properties", "home", "oneOf", 0], {"$ref": "#/components/schemas/Apartment"}))),
    "rust-item-kind-changed": (None, set_(S + ["Kind"], {"type": "object", "properties": {"a": {"type": "string"}}})),
    "rust-fn-signature-changed": (None, lambda s: op(s, *ONE)["parameters"].append(
        {"name": "fields", "in": "query", "schema": {"type": "string"}})),
    "rust-alias-changed": (set_(S + ["Tags"], {"type": "array", "items": {"type": "string"}}),
                           set_(S + ["Tags"], {"type": "array", "items": {"type": "integer"}})),
    "rust-field-removed": (None, delete(S + ["Pet", "properties", "tag"])),
    "rust-field-type-changed": (None, set_(S + ["Pet", "properties", "tag"], {"type": "integer"})),
    "rust-field-added-exhaustive": (None, set_(S + ["Pet", "properties", "colour"], {"type": "string"})),
    "rust-field-added-non-exhaustive": (None, set_(S + ["NewPet", "properties", "colour"], {"type": "string"})),
    "rust-variant-removed": (None, set_(S + ["Kind", "enum"], ["cat"])),
    "rust-variant-changed": (
        set_(P + ["/pets", "get", "responses", "404", "content"],
             {"application/json": {"schema": {"$ref": "#/components/schemas/Person"}}}),
        set_(P + ["/pets", "get", "responses", "404", "content"],
             {"application/json": {"schema": {"$ref": "#/components/schemas/Shelter"}}})),
    "rust-variant-added-exhaustive": (
        set_(P + ["/pets/{id}", "get", "responses", "202"], {"description": "accepted"}),
        set_(P + ["/pets/{id}", "get", "responses", "203"], {"description": "not authoritative"})),
    "rust-variant-added-non-exhaustive": (None, set_(S + ["Kind", "enum"], ["cat", "dog", "bird"])),
    "rust-non-exhaustive-added": (None, set_(P + ["/pets/{id}", "get", "requestBody"], {
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Person"}}}})),
    "rust-non-exhaustive-removed": (set_(P + ["/pets/{id}", "get", "requestBody"], {
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Person"}}}}), None),
    # A model whose fields are all optional derives Default; a required field takes it away.
    "rust-trait-impl-removed": (set_(S + ["Shelter", "required"], []), None),
    "rust-trait-impl-added": (None, set_(S + ["Shelter", "required"], [])),
    "rust-docs-or-private-changed": (None, set_(S + ["Pet", "description"], "A pet of the store.")),
    # The project's decisions.
    "decision-level-loosened": (None, set_(["x-max-body", "level"], "should")),
    "decision-level-tightened": (None, delete(P + ["/pets", "post", "responses", "400", "x-level"])),
    "decision-changed": (None, set_(P + ["/pets", "post", "responses", "400", "x-decision"], "4")),
    "project-rule-added": (None, set_(["x-server-errors"], {"never": "5xx", "level": "must", "decision": "20"})),
    "project-rule-removed": (None, delete(["x-max-body"])),
    "project-rule-changed": (None, set_(["x-max-body", "bytes"], 1024)),
    # The spec's version.
    "api-version-not-bumped": (None, both(delete(P + ["/pets/{id}"]), set_(["info", "version"], "1.1.0"))),
    # A breaking change with the major bump: no version finding.
    "api-version-bumped": (None, both(delete(P + ["/pets/{id}"]), set_(["info", "version"], "2.0.0"))),
    # 3.0 against 3.1: the same API written both ways has no wire change.
    "openapi-3.0-to-3.1": (None, lambda s: to_31(s)),
}


def to_31(s):
    s["openapi"] = "3.1.0"
    tag = schemas(s)["NewPet"]["properties"]["tag"]
    tag["type"] = ["string"]


def write(path, spec):
    with open(path, "w") as f:
        yaml.safe_dump(spec, f, sort_keys=False, width=100)


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "pairs")
    shutil.rmtree(root, ignore_errors=True)
    for name, (old_edit, new_edit) in PAIRS.items():
        old = copy.deepcopy(BASE)
        if old_edit:
            old_edit(old)
        # An edit of the old spec alone is undone in the new one: the new is the base.
        new = copy.deepcopy(old) if new_edit else copy.deepcopy(BASE)
        if new_edit:
            new_edit(new)
        d = os.path.join(root, name)
        os.makedirs(d)
        write(os.path.join(d, "old.yaml"), old)
        write(os.path.join(d, "new.yaml"), new)


if __name__ == "__main__":
    main()
