#!/bin/sh
# For trying the deployment without the district's certificate (deploy/tls/README.md): makes a
# local certificate authority and, signed by it, a certificate for the given host names and
# addresses, in the form the balancer reads. Run once, from anywhere:
#
#   sh deploy/tls/make-local-ca.sh [name-or-address ...]     (default: localhost 127.0.0.1)
#
# Writes into this directory (or $TLS_DIR):
#   local-ca/ca.crt   the authority: install it as trusted on the devices that will use the site
#   local-ca/ca.key   its private key: stays here (never in git or the image: .gitignore,
#                     .dockerignore); delete it once the site certificate exists if you like
#   site.pem          the site's certificate, the authority's, then the site's private key: what
#                     docker-compose.yml mounts into the balancer
# Needs openssl. An existing site.pem is kept unless FORCE=1.
set -eu
dir="${TLS_DIR:-$(cd "$(dirname "$0")" && pwd)}"
[ "$#" -gt 0 ] || set -- localhost 127.0.0.1
if [ -e "$dir/site.pem" ] && [ "${FORCE:-0}" != 1 ]; then
  echo "$dir/site.pem exists; FORCE=1 replaces it" >&2
  exit 1
fi
umask 077
mkdir -p "$dir/local-ca"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

san=""
for name in "$@"; do
  case "$name" in
    *[!0-9.]*) entry="DNS:$name" ;;
    *) entry="IP:$name" ;;
  esac
  san="${san:+$san,}$entry"
done

if [ ! -e "$dir/local-ca/ca.key" ]; then
  openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 -days 825 \
    -subj "/CN=Classroom whiteboard local CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$dir/local-ca/ca.key" -out "$dir/local-ca/ca.crt" 2>/dev/null
fi
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -sha256 \
  -subj "/CN=$1" -keyout "$work/site.key" -out "$work/site.csr" 2>/dev/null
printf 'basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=%s\n' "$san" > "$work/ext"
# 397 days: the longest validity browsers accept for a site certificate.
openssl x509 -req -in "$work/site.csr" -CA "$dir/local-ca/ca.crt" -CAkey "$dir/local-ca/ca.key" \
  -CAcreateserial -CAserial "$work/ca.srl" -days 397 -sha256 -extfile "$work/ext" -out "$work/site.crt" 2>/dev/null
cat "$work/site.crt" "$dir/local-ca/ca.crt" "$work/site.key" > "$dir/site.pem"
chmod 600 "$dir/site.pem"
chmod 644 "$dir/local-ca/ca.crt"
echo "site certificate for $san in $dir/site.pem; trust $dir/local-ca/ca.crt on the devices"
