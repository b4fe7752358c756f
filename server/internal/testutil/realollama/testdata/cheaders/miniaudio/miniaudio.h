/*
 * A stand-in for miniaudio.h, written for icm's test builds of the Ollama
 * server. The Go module download of Ollama leaves out llama.cpp's vendored
 * miniaudio, which llama.cpp uses only to decode audio input. icm never
 * sends audio, so this header declares just the decoder API that
 * tools/mtmd/mtmd-helper.cpp calls, and every call reports failure: an audio
 * input would be refused as undecodable instead of being decoded.
 */
#ifndef ICM_MINIAUDIO_STAND_IN_H
#define ICM_MINIAUDIO_STAND_IN_H

#include <stddef.h>
#include <stdint.h>

/* The includer sets MA_API (to static); default to plain linkage otherwise. */
#ifndef MA_API
#define MA_API
#endif

typedef uint32_t ma_uint32;
typedef uint64_t ma_uint64;

typedef enum {
    MA_SUCCESS = 0,
    MA_ERROR = -1,
    MA_NOT_IMPLEMENTED = -29
} ma_result;

typedef enum {
    ma_format_unknown = 0,
    ma_format_u8 = 1,
    ma_format_s16 = 2,
    ma_format_s24 = 3,
    ma_format_s32 = 4,
    ma_format_f32 = 5
} ma_format;

typedef struct {
    ma_format format;
    ma_uint32 channels;
    ma_uint32 sampleRate;
} ma_decoder_config;

typedef struct {
    ma_decoder_config config;
} ma_decoder;

#ifdef MINIAUDIO_IMPLEMENTATION

MA_API ma_decoder_config ma_decoder_config_init(ma_format outputFormat, ma_uint32 outputChannels, ma_uint32 outputSampleRate)
{
    ma_decoder_config config;
    config.format = outputFormat;
    config.channels = outputChannels;
    config.sampleRate = outputSampleRate;
    return config;
}

MA_API ma_result ma_decoder_init_memory(const void* pData, size_t dataSize, const ma_decoder_config* pConfig, ma_decoder* pDecoder)
{
    (void)pData;
    (void)dataSize;
    (void)pConfig;
    if (pDecoder != NULL) {
        pDecoder->config.format = ma_format_unknown;
        pDecoder->config.channels = 0;
        pDecoder->config.sampleRate = 0;
    }
    return MA_NOT_IMPLEMENTED;
}

MA_API ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder* pDecoder, ma_uint64* pLength)
{
    (void)pDecoder;
    if (pLength != NULL) {
        *pLength = 0;
    }
    return MA_NOT_IMPLEMENTED;
}

MA_API ma_result ma_decoder_read_pcm_frames(ma_decoder* pDecoder, void* pFramesOut, ma_uint64 frameCount, ma_uint64* pFramesRead)
{
    (void)pDecoder;
    (void)pFramesOut;
    (void)frameCount;
    if (pFramesRead != NULL) {
        *pFramesRead = 0;
    }
    return MA_NOT_IMPLEMENTED;
}

MA_API ma_result ma_decoder_uninit(ma_decoder* pDecoder)
{
    (void)pDecoder;
    return MA_SUCCESS;
}

#endif /* MINIAUDIO_IMPLEMENTATION */

#endif /* ICM_MINIAUDIO_STAND_IN_H */
