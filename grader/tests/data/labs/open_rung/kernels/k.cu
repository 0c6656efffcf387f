// fixture kernel: never compiled; lab.yaml only checks that it exists
