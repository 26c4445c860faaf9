import NativeAuth
