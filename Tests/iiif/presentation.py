"""IIIF Presentation API 3.0 of a live tilescope, checked from the outside.

Walks /iiif/presentation/collection.json (and its pages), every Manifest it lists and the
gallery Manifest; parses each with iiif-prezi3's models (the structure validator); checks
that label/summary/metadata are language maps, every id is absolute under the server's
base, every Canvas has its image's size as the Image API's info.json states it, every
service id answers (303 to its info.json, 200), every painted image and thumbnail answers
with a JPEG, and that the gallery Manifest lists the same images in the same order as the
Collection. Exits 1 on any failure.

Usage: presentation.py http://127.0.0.1:PORT
"""
import json
import sys
import urllib.error
import urllib.request

from iiif_prezi3 import Collection, Manifest

CONTEXT = "http://iiif.io/api/presentation/3/context.json"
MEDIA_TYPE = f'application/ld+json;profile="{CONTEXT}"'
base = sys.argv[1].rstrip("/")
failures = []
fetched = {}


def check(condition, message):
    if not condition:
        failures.append(message)
    return condition


def get(url):
    """(status, headers, body), following redirects, never raising on HTTP errors."""
    if url in fetched:
        return fetched[url]
    try:
        with urllib.request.urlopen(url, timeout=30) as reply:
            result = (reply.status, reply.headers, reply.read())
    except urllib.error.HTTPError as error:
        result = (error.code, error.headers, error.read())
    fetched[url] = result
    return result


def document(url, model):
    status, headers, body = get(url)
    if not check(status == 200, f"{url}: HTTP {status}"):
        return None
    check(headers.get("Content-Type") == MEDIA_TYPE, f"{url}: Content-Type {headers.get('Content-Type')}")
    check(headers.get("Access-Control-Allow-Origin") == "*", f"{url}: no CORS header")
    data = json.loads(body)
    check(data.get("@context") == CONTEXT, f"{url}: @context {data.get('@context')}")
    check(data.get("id") == url, f"{url}: id is {data.get('id')}, not its own URL")
    try:
        model(**data)
    except Exception as error:  # pydantic's ValidationError, or anything else the model refuses
        failures.append(f"{url}: iiif-prezi3 refuses it as a {model.__name__}: {error}")
    return data


def language_map(value, where):
    check(isinstance(value, dict) and value and all(
        isinstance(k, str) and isinstance(v, list) and v and all(isinstance(s, str) for s in v)
        for k, v in value.items()), f"{where}: not a language map: {value!r}")


def absolute(value, where):
    check(isinstance(value, str) and value.startswith(base + "/"), f"{where}: id {value!r} is not under {base}/")


def image_answers(url, where):
    status, headers, body = get(url)
    check(status == 200 and headers.get("Content-Type") == "image/jpeg" and body[:2] == b"\xff\xd8",
          f"{where}: {url} answers {status} {headers.get('Content-Type')}")


def check_manifest(url):
    manifest = document(url, Manifest)
    if manifest is None:
        return []
    language_map(manifest.get("label"), f"{url} label")
    if "summary" in manifest:
        language_map(manifest["summary"], f"{url} summary")
    for entry in manifest.get("metadata", []):
        language_map(entry.get("label"), f"{url} metadata label")
        language_map(entry.get("value"), f"{url} metadata value")
    for thumbnail in manifest.get("thumbnail", []):
        absolute(thumbnail.get("id"), f"{url} thumbnail")
        image_answers(thumbnail["id"], f"{url} thumbnail")
    canvases = manifest.get("items", [])
    check(len(canvases) >= 1, f"{url}: no Canvas")
    for canvas in canvases:
        where = f"{url} canvas {canvas.get('id')}"
        absolute(canvas.get("id"), where)
        language_map(canvas.get("label"), f"{where} label")
        annotations = [a for page in canvas.get("items", []) for a in page.get("items", [])]
        check(len(annotations) == 1, f"{where}: {len(annotations)} annotations, expected one")
        for annotation in annotations:
            absolute(annotation.get("id"), f"{where} annotation")
            check(annotation.get("motivation") == "painting", f"{where}: motivation {annotation.get('motivation')}")
            check(annotation.get("target") == canvas.get("id"), f"{where}: target {annotation.get('target')}")
            body = annotation.get("body", {})
            check(body.get("type") == "Image" and body.get("format") == "image/jpeg", f"{where}: body {body}")
            image_answers(body.get("id"), f"{where} body")
            for service in body.get("service", []):
                check(service.get("type") == "ImageService3" and service.get("profile") == "level2",
                      f"{where}: service {service}")
                absolute(service.get("id"), f"{where} service")
                status, _, info_body = get(service["id"])  # 303 to info.json, followed
                if check(status == 200, f"{where}: service {service['id']} answers {status}"):
                    info = json.loads(info_body)
                    check(info.get("id") == service["id"], f"{where}: info.json id {info.get('id')}")
                    check((canvas.get("width"), canvas.get("height")) == (info.get("width"), info.get("height")),
                          f"{where}: canvas {canvas.get('width')}x{canvas.get('height')}, "
                          f"info.json {info.get('width')}x{info.get('height')}")
            # A slide's associated images (label, macro) are small JPEGs of their own, painted without a service.
            services = 0 if "/associated/" in canvas.get("id", "") else 1
            check(len(body.get("service", [])) == services, f"{where}: {len(body.get('service', []))} services")
    return [c.get("id") for c in canvases if "/associated/" not in c.get("id", "")]


def manifests_of(url, depth=0):
    collection = document(url, Collection)
    if collection is None:
        return []
    language_map(collection.get("label"), f"{url} label")
    ids = []
    for item in collection.get("items", []):
        absolute(item.get("id"), f"{url} item")
        if item.get("type") == "Collection" and check(depth == 0, f"{url}: pages nest more than once"):
            page = manifests_of(item["id"], depth + 1)
            check(page, f"{item['id']}: an empty page")
            ids += page
        elif check(item.get("type") == "Manifest", f"{url}: item of type {item.get('type')}"):
            ids.append(item["id"])
    return ids


manifests = manifests_of(f"{base}/iiif/presentation/collection.json")
check(len(manifests) >= 2, f"the collection lists {len(manifests)} manifests, expected every test image")
canvas_ids = []
for manifest in manifests:
    canvas_ids += check_manifest(manifest)
gallery = check_manifest(f"{base}/iiif/presentation/gallery/manifest.json")
check(gallery == canvas_ids, f"gallery manifest canvases {gallery} differ from the collection's {canvas_ids}")
for sort in ["rating", "added"]:
    check_manifest(f"{base}/iiif/presentation/gallery/manifest.json?sort={sort}")

for failure in failures:
    print("FAIL:", failure)
print(f"presentation: {len(manifests)} manifests, {len(canvas_ids)} canvases, {len(fetched)} URLs fetched, "
      f"{len(failures)} failures")
sys.exit(1 if failures else 0)
