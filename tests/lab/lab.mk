# Lab, system tests and demo (included by the top-level Makefile).
# The lab is an emulated Xen 4.17 host: see tests/lab/README.md.

.PHONY: deps lab lab-up lab-down lab-shell check-lab check-lab-all check check-deb demo

# Host build tools only: nothing here installs Xen or a kernel on the host.
deps:
	tests/lab/install-deps

lab: deps
	tests/lab/build-images

lab-up: all lab
	tests/lab/lab up

lab-down:
	tests/lab/lab down

lab-shell: all lab
	tests/lab/lab shell

check-lab: all
	tests/lab/check

check: deps
	tests/check

# make check with every lab script, also those marked "# lab-tier: all"
# (further cases beyond each command's main lab path).
check-lab-all: deps
	LAB_TIER=all tests/check

# The Debian package: built, lintian, tried in the lab's dom0 (needs
# debhelper and lintian; not part of check).
check-deb: all lab
	tests/deb.sh

demo: deps all lab
	tests/lab/run --timeout 1800 tests/lab/demo.sh
